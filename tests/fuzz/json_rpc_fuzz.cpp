// JSON-RPC classification, the JSON check, the splices and the preserving writer on arbitrary
// bytes. Where the bytes are a JSON object, splicing a member in (the id, a member set at the
// top or one level down) must give exactly the parsed object with that change; and a parsed
// value written back guided by its text, changed or not, must read back as that value (and
// be the text itself where nothing changed and nothing was written twice).
#include "protocol/json_check.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/json_splice.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

namespace json = boost::json;

// Equal, doubles but for their last bits: Boost.JSON 1.81 reads some long decimals a bit or
// two apart depending on whether 14 bytes or more follow them in the text (two paths, neither
// exact), so the same text, or a double the writer wrote anew, may read back a little apart.
bool same(const json::value& a, const json::value& b) {
    if (a.is_double() && b.is_double()) {
        double x = a.get_double(), y = b.get_double();
        if (std::memcmp(&x, &y, sizeof x) == 0 || (std::isnan(x) && std::isnan(y)))
            return true;
        for (int ulp = 0; ulp < 4 && x != y; ++ulp)
            x = std::nextafter(x, y);
        return x == y;
    }
    if (a.kind() != b.kind())
        return false;
    if (a.is_object()) {
        const auto &x = a.get_object(), &y = b.get_object();
        if (x.size() != y.size())
            return false;
        auto i = x.begin();
        auto j = y.begin();
        for (; i != x.end(); ++i, ++j)
            if (i->key() != j->key() || !same(i->value(), j->value()))
                return false;
        return true;
    }
    if (a.is_array()) {
        const auto &x = a.get_array(), &y = b.get_array();
        if (x.size() != y.size())
            return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!same(x[i], y[i]))
                return false;
        return true;
    }
    return a == b;
}

// Written back guided by `text`, `v` reads as itself.
void check_preserving(const json::value& v, std::string_view text) {
    auto out = gate::protocol::serialize_preserving(v, text);
    boost::system::error_code ec;
    auto back = json::parse(out, ec);
    if (ec || !same(v, back))
        std::abort();
}

void check_set_member(const json::object& obj, std::string_view text) {
    auto top = gate::protocol::set_member(text, {}, "fuzz", "[1]");
    if (top) {
        auto after = json::parse(*top);
        auto expect = obj;
        expect["fuzz"] = json::array{1};
        if (!same(after, expect))
            std::abort();
        check_preserving(expect, *top);
    } else if (!obj.contains("fuzz")) {
        // Only a member written twice is refused, and then the parser kept one.
        std::abort();
    }
    // One level down: in the first member whose value is an object.
    for (const auto& [key, value] : obj) {
        if (!value.is_object())
            continue;
        auto nested = gate::protocol::set_member(text, {key}, "fuzz", "true");
        if (nested) {
            auto after = json::parse(*nested);
            auto expect = obj;
            expect[key].as_object()["fuzz"] = true;
            if (!same(after, expect))
                std::abort();
        }
        break;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    boost::system::error_code ec;
    auto v = boost::json::parse(text, ec);
    // The check an upstream's answer gets instead of a parse accepts exactly what the
    // parser accepts.
    if (gate::protocol::is_json(text) == static_cast<bool>(ec))
        std::abort();
    if (ec)
        return 0;
    (void)gate::protocol::classify(v);
    // Unchanged, the value is its text wherever the text says nothing more than the value.
    check_preserving(v, text);
    if (gate::protocol::reads_as(v, text)) {
        auto begin = text.find_first_not_of(" \t\r\n");
        auto end = text.find_last_not_of(" \t\r\n") + 1;
        if (gate::protocol::serialize_preserving(v, text) != text.substr(begin, end - begin))
            std::abort();
    }
    auto* obj = v.if_object();
    if (!obj)
        return 0;
    check_set_member(*obj, text);
    // The guide of a request's params is found by its spelling; whatever it is, the params
    // written from it read as the params.
    if (auto* params = obj->if_contains("params")) {
        auto at = gate::protocol::find_spelled_member(text, "params");
        check_preserving(*params, at ? text.substr(*at) : std::string_view());
    }
    // Changed: a member replaced and one added, as the route and the envelope change params.
    auto changed = *obj;
    changed["id"] = "fuzz";
    changed["_meta"] = json::object{{"k", 1}};
    check_preserving(changed, text);
    auto spliced = gate::protocol::replace_top_level_member(text, "id", "\"fuzz\"");
    if (obj->contains("id") != spliced.has_value()) {
        // Keys written with escapes (e.g. "\u0069d") are not matched by design.
        return 0;
    }
    if (spliced) {
        auto after = boost::json::parse(*spliced, ec);
        if (ec || !after.is_object())
            std::abort();
        auto expect = *obj;
        expect["id"] = "fuzz";
        if (!same(after, expect))
            std::abort();
    }
    return 0;
}
