// The nine stages every MCP request passes, in the order the spec makes an invariant.
// Each stage is a named unit of code; a request records the stages it passed in a trace so
// tests can pin the order.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace gate::gateway {

enum class stage : std::uint8_t {
    host_origin,
    authenticate,
    global_limit,
    route,
    authorize,
    upstream_guards,
    proxy,
    egress,
    audit,
};

inline constexpr std::array pipeline_order = {
    stage::host_origin, stage::authenticate, stage::global_limit,
    stage::route,       stage::authorize,    stage::upstream_guards,
    stage::proxy,       stage::egress,       stage::audit,
};

constexpr std::string_view stage_name(stage s) {
    constexpr std::array<std::string_view, 9> names = {
        "host_origin",     "authenticate", "global_limit", "route", "authorize",
        "upstream_guards", "proxy",        "egress",       "audit"};
    return names[static_cast<std::size_t>(s)];
}

// The stages one request passed, in the order it passed them.
struct stage_trace {
    std::array<stage, 16> passed{};
    std::size_t count = 0;
    void record(stage s) {
        if (count < passed.size())
            passed[count++] = s;
    }
};

} // namespace gate::gateway
