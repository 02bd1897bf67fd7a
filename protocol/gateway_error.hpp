// Every failure the gateway mints itself (spec: "Errors"), and the one table that says how
// each is answered and counted: HTTP status, JSON-RPC code, audit outcome, metric label.
// Nothing else builds these; anything an upstream returns passes through verbatim instead.
#pragma once

#include "protocol/outcome.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gate::protocol {

enum class gateway_error : std::uint8_t {
    // Answered as JSON-RPC errors (HTTP 200) on the MCP endpoint.
    upstream_rate_limited, // upstreams[].rateLimit
    upstream_circuit_open, // the breaker refused the call
    upstream_unreachable,  // connect failed or timed out
    upstream_failed,       // timed out, or answered something that is not JSON-RPC
    all_upstreams_down,    // a federated list reached no upstream
    policy_denied,
    unknown_namespace,
    budget_exhausted,
    unknown_task,
    invalid_cursor,
    // HTTP refusals before any MCP handling.
    global_rate_limited, // server.rateLimit: 429 with Retry-After
    unauthenticated,
    forbidden_host,
    forbidden_origin,
    body_too_large,
    ambiguous_tenant, // a principal two tenants select: 403
    // Not an error: the number of rows. Keep it last; the table and its test are checked
    // against it when compiled, so a row added above it cannot be left out of either.
    count_,
};
inline constexpr std::size_t gateway_error_count = static_cast<std::size_t>(gateway_error::count_);

struct gateway_error_row {
    int http_status;       // 200 for JSON-RPC errors
    int rpc_code;          // 0 for HTTP refusals
    outcome audit_outcome; // spec: Audit event, outcome
    // gate_upstream_requests_total{outcome} for upstream errors,
    // gate_http_rejections_total{reason} for HTTP refusals, empty otherwise.
    std::string_view metric_label;
};

const gateway_error_row& describe(gateway_error e);

// The JSON-RPC error of a gateway-minted failure (its code from the table), under `id`.
boost::json::object make_gateway_error(gateway_error e, const boost::json::value& id,
                                       std::string_view text);

} // namespace gate::protocol
