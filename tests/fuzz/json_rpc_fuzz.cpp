// JSON-RPC classification, the JSON check and the id splice on arbitrary bytes. Where the bytes are
// a JSON object with an id, splicing a new id must give exactly the same object with that id.
#include "protocol/json_check.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/json_splice.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cstdint>
#include <cstdlib>

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
    auto* obj = v.if_object();
    if (!obj)
        return 0;
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
        if (after.as_object() != expect)
            std::abort();
    }
    return 0;
}
