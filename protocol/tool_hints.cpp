#include "protocol/tool_hints.hpp"

namespace gate::protocol {

namespace {

constexpr std::pair<std::string_view, tool_hints::hint> names[] = {
    {"readOnlyHint", tool_hints::read_only},
    {"destructiveHint", tool_hints::destructive},
    {"idempotentHint", tool_hints::idempotent},
    {"openWorldHint", tool_hints::open_world},
};

} // namespace

std::optional<tool_hints::hint> tool_hints::named(std::string_view name) {
    for (const auto& [n, h] : names)
        if (n == name)
            return h;
    return std::nullopt;
}

tool_hints tool_hints::of(const boost::json::object& tool) {
    tool_hints out;
    const auto* a = tool.if_contains("annotations");
    const auto* annotations = a ? a->if_object() : nullptr;
    if (!annotations)
        return out;
    for (const auto& [n, h] : names) {
        const auto* v = annotations->if_contains(n);
        if (!v || !v->is_bool())
            continue;
        if (v->get_bool())
            out.set |= h;
        else
            out.set &= static_cast<std::uint8_t>(~h);
    }
    return out;
}

} // namespace gate::protocol
