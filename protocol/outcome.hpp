// What became of a request, as audit events and gate_requests_total report it (spec: Audit
// event, `outcome`). A type, not a string: a misspelt outcome is a compile error; the name is
// written only at the edges (the audit line, the metric label).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace gate::protocol {

enum class outcome : std::uint8_t {
    ok,
    error,
    denied,
    rate_limited,
    unauthenticated,
    upstream_down,
    forbidden,
    budget_exhausted,
};

inline constexpr std::array<std::string_view, 8> outcome_names = {
    "ok",        "error",           "denied", "rate_limited", "unauthenticated", "upstream_down",
    "forbidden", "budget_exhausted"};

constexpr std::string_view name(outcome o) {
    return outcome_names[static_cast<std::size_t>(o)];
}

// The outcome as gate_requests_total counts it: the spec freezes that label to `ok`, `error`,
// `denied`, `rate_limited` and `upstream_down`. A refused credential or host is `denied`; an
// exhausted budget is a quota, `rate_limited`. The audit event keeps the finer outcome.
constexpr std::string_view metric_name(outcome o) {
    switch (o) {
    case outcome::unauthenticated:
    case outcome::forbidden:
        return "denied";
    case outcome::budget_exhausted:
        return "rate_limited";
    default:
        return name(o);
    }
}

} // namespace gate::protocol
