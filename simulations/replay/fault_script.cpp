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

// The kind named `k`; stall is the store's (a fault with no upstream) and only its.
std::optional<fault::kind> kind_named(json::string_view k, bool store) {
    if (k == "hang")
        return fault::kind::hang;
    if (k == "fail")
        return fault::kind::fail;
    if (k == "slow")
        return fault::kind::slow;
    if (k == "restart")
        return fault::kind::restart;
    if (k == "down")
        return fault::kind::down;
    if (store)
        return fault::kind::stall;
    return std::nullopt;
}

// When the fault holds: a restart's instant, any other's window. Why not, if it is wrong.
std::optional<std::string> read_times(const json::object& o, fault& f) {
    if (f.what == fault::kind::restart) {
        auto at = whole(o, "atMs");
        if (!at)
            return "a restart needs \"atMs\", milliseconds from the start";
        f.from = f.to = std::chrono::milliseconds(*at);
        return std::nullopt;
    }
    auto from = whole(o, "fromMs"), to = whole(o, "toMs");
    if (!from || !to || *to <= *from)
        return "needs \"fromMs\" and a later \"toMs\", milliseconds from the start";
    f.from = std::chrono::milliseconds(*from);
    f.to = std::chrono::milliseconds(*to);
    return std::nullopt;
}

// A failure's status and a slow upstream's delay. Why not, if one is wrong.
std::optional<std::string> read_answer_shape(const json::object& o, fault& f) {
    if (f.what == fault::kind::fail && o.contains("status")) {
        auto s = whole(o, "status");
        if (!s || *s < 400 || *s > 599)
            return "\"status\" must be an HTTP error status, 400 to 599";
        f.status = static_cast<int>(*s);
    }
    if (f.what == fault::kind::slow) {
        auto d = whole(o, "delayMs");
        if (!d || *d == 0)
            return "a slow upstream needs \"delayMs\", above 0";
        f.delay = std::chrono::milliseconds(*d);
    }
    return std::nullopt;
}

// One fault of the list, or the first reason it is not one.
std::variant<fault, std::string> parse_fault(const json::value& item) {
    auto* o = item.if_object();
    auto* upstream = o ? o->if_contains("upstream") : nullptr;
    auto* kind = o ? o->if_contains("kind") : nullptr;
    bool store = kind && kind->is_string() && kind->get_string() == "stall";
    if (!kind || !kind->is_string() || (!store && (!upstream || !upstream->is_string())))
        return "needs \"upstream\" and \"kind\" strings";
    fault f;
    if (!store)
        f.upstream = std::string(upstream->get_string());
    auto what = kind_named(kind->get_string(), store);
    if (!what)
        return "\"kind\" must be hang, fail, slow, restart, down or stall";
    f.what = *what;
    if (o->contains("replica")) {
        auto r = whole(*o, "replica");
        if (!r || *r < 1)
            return "\"replica\" is a replica's number, from 1";
        f.replica = static_cast<int>(*r);
    }
    if (auto why = read_times(*o, f))
        return *why;
    if (auto why = read_answer_shape(*o, f))
        return *why;
    return f;
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
        auto parsed = parse_fault(item);
        if (auto* why = std::get_if<std::string>(&parsed))
            errors.push_back(where + *why);
        else
            script.faults.push_back(std::move(std::get<fault>(parsed)));
    }
    if (!errors.empty())
        return errors;
    return script;
}

} // namespace gate::sim
