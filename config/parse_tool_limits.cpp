// upstreams[].toolLimits: rate limits of some of the upstream's tools (docs/configuration.md,
// "Tool limits"), each refused at its pointer.
#include "config/parse_sections.hpp"

#include <map>

namespace gate::config::detail {

namespace {

std::optional<tool_limit> parse_tool_limit(const object_view& o) {
    tool_limit t;
    o.require("names", "the tools it limits: patterns of the upstream's own tool names, `*` "
                       "matching any run of characters");
    if (auto names = o.strings("names")) {
        if (names->empty())
            o.fail("names", "must list at least one tool name pattern");
        t.names = std::move(*names);
    }
    t.requests_per_minute = o.integer("requestsPerMinute", bound::positive);
    t.per_principal_per_minute = o.integer("perPrincipalPerMinute", bound::positive);
    if (!o.has("requestsPerMinute") && !o.has("perPrincipalPerMinute"))
        o.fail_here("sets no limit: give requestsPerMinute (the calls of everyone together), "
                    "perPrincipalPerMinute (each principal's own), or both");
    if (t.names.empty() || (!t.requests_per_minute && !t.per_principal_per_minute))
        return std::nullopt;
    return t;
}

} // namespace

std::vector<tool_limit> parse_tool_limits(const object_view& upstream) {
    std::vector<tool_limit> out;
    const auto* arr = upstream.array("toolLimits");
    if (arr == nullptr)
        return out;
    if (arr->empty())
        upstream.fail("toolLimits", "must list at least one limit (omit toolLimits for none)");
    std::string base = upstream.pointer_of("toolLimits");
    // An entry's names identify its windows (in a fleet's store too): two entries with the
    // same names would share them.
    std::map<std::vector<std::string>, std::string> first;
    for (std::size_t i = 0; i < arr->size(); ++i) {
        object_view o((*arr)[i], child_pointer(base, i), upstream.errors(),
                      {"names", "requestsPerMinute", "perPrincipalPerMinute"});
        if (!o.ok())
            continue;
        auto t = parse_tool_limit(o);
        if (!t)
            continue;
        if (auto [it, fresh] = first.emplace(t->names, o.pointer()); !fresh) {
            o.fail("names",
                   "repeats the names of " + it->second + "; give both limits in one entry");
            continue;
        }
        out.push_back(std::move(*t));
    }
    return out;
}

} // namespace gate::config::detail
