#include "simulations/replay/fault_script.hpp"

#include <boost/json.hpp>

namespace gate::sim {

namespace json = boost::json;

std::optional<fault> fault_script::on_request(const std::string& upstream, int replica,
                                              std::chrono::milliseconds elapsed) const {
    for (const auto& f : faults)
        if (f.applies(upstream, replica) &&
            (f.what == fault::kind::hang || f.what == fault::kind::fail ||
             f.what == fault::kind::slow) &&
            elapsed >= f.from && elapsed < f.to)
            return f;
    return std::nullopt;
}

namespace {

std::optional<std::int64_t> whole(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    if (v && v->is_int64() && v->get_int64() >= 0)
        return v->get_int64();
    if (v && v->is_uint64())
        return static_cast<std::int64_t>(v->get_uint64());
    return std::nullopt;
}

} // namespace

std::variant<fault_script, std::vector<std::string>> parse_fault_script(std::string_view text) {
    std::vector<std::string> errors;
    boost::system::error_code ec;
    auto doc = json::parse(text, ec);
    auto* root = ec ? nullptr : doc.if_object();
    auto* list = root ? root->if_contains("faults") : nullptr;
    if (!list || !list->is_array())
        return std::vector<std::string>{"a fault script is an object with a \"faults\" array"};
    fault_script script;
    std::size_t index = 0;
    for (const auto& item : list->get_array()) {
        auto where = "/faults/" + std::to_string(index++) + ": ";
        auto* o = item.if_object();
        auto* upstream = o ? o->if_contains("upstream") : nullptr;
        auto* kind = o ? o->if_contains("kind") : nullptr;
        bool store = kind && kind->is_string() && kind->get_string() == "stall";
        if (!kind || !kind->is_string() || (!store && (!upstream || !upstream->is_string()))) {
            errors.push_back(where + "needs \"upstream\" and \"kind\" strings");
            continue;
        }
        fault f;
        if (!store)
            f.upstream = std::string(upstream->get_string());
        auto k = kind->get_string();
        if (k == "hang")
            f.what = fault::kind::hang;
        else if (k == "fail")
            f.what = fault::kind::fail;
        else if (k == "slow")
            f.what = fault::kind::slow;
        else if (k == "restart")
            f.what = fault::kind::restart;
        else if (k == "down")
            f.what = fault::kind::down;
        else if (store)
            f.what = fault::kind::stall;
        else {
            errors.push_back(where + "\"kind\" must be hang, fail, slow, restart, down or stall");
            continue;
        }
        if (o->contains("replica")) {
            auto r = whole(*o, "replica");
            if (!r || *r < 1) {
                errors.push_back(where + "\"replica\" is a replica's number, from 1");
                continue;
            }
            f.replica = static_cast<int>(*r);
        }
        if (f.what == fault::kind::restart) {
            auto at = whole(*o, "atMs");
            if (!at) {
                errors.push_back(where + "a restart needs \"atMs\", milliseconds from the start");
                continue;
            }
            f.from = f.to = std::chrono::milliseconds(*at);
        } else {
            auto from = whole(*o, "fromMs"), to = whole(*o, "toMs");
            if (!from || !to || *to <= *from) {
                errors.push_back(where + "needs \"fromMs\" and a later \"toMs\", milliseconds "
                                         "from the start");
                continue;
            }
            f.from = std::chrono::milliseconds(*from);
            f.to = std::chrono::milliseconds(*to);
        }
        if (f.what == fault::kind::fail && o->contains("status")) {
            auto s = whole(*o, "status");
            if (!s || *s < 400 || *s > 599) {
                errors.push_back(where + "\"status\" must be an HTTP error status, 400 to 599");
                continue;
            }
            f.status = static_cast<int>(*s);
        }
        if (f.what == fault::kind::slow) {
            auto d = whole(*o, "delayMs");
            if (!d || *d == 0) {
                errors.push_back(where + "a slow upstream needs \"delayMs\", above 0");
                continue;
            }
            f.delay = std::chrono::milliseconds(*d);
        }
        script.faults.push_back(std::move(f));
    }
    if (!errors.empty())
        return errors;
    return script;
}

} // namespace gate::sim
