#include "protocol/tool_definition.hpp"

#include "protocol/digest.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <vector>

namespace gate::protocol {

namespace json = boost::json;

namespace {

void write_canonical(const json::value& v, std::string& out) {
    if (const auto* o = v.if_object()) {
        std::vector<const json::key_value_pair*> members;
        members.reserve(o->size());
        for (const auto& m : *o)
            members.push_back(&m);
        std::sort(members.begin(), members.end(),
                  [](const auto* a, const auto* b) { return a->key() < b->key(); });
        out += '{';
        for (std::size_t i = 0; i < members.size(); ++i) {
            if (i)
                out += ',';
            out += json::serialize(json::string(members[i]->key()));
            out += ':';
            write_canonical(members[i]->value(), out);
        }
        out += '}';
    } else if (const auto* a = v.if_array()) {
        out += '[';
        for (std::size_t i = 0; i < a->size(); ++i) {
            if (i)
                out += ',';
            write_canonical((*a)[i], out);
        }
        out += ']';
    } else {
        out += json::serialize(v);
    }
}

} // namespace

std::string canonical_json(const json::value& v) {
    std::string out;
    write_canonical(v, out);
    return out;
}

std::string definition_digest(const json::object& tool) {
    json::object seen;
    for (const char* field :
         {"name", "title", "description", "inputSchema", "outputSchema", "annotations"})
        if (const auto* v = tool.if_contains(field))
            seen[field] = *v;
    return "sha256:" + sha256_hex(canonical_json(seen), 64);
}

} // namespace gate::protocol
