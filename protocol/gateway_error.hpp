// Every failure the gateway answers itself (spec: "Errors"), and the one table that says how
// each is answered and counted: HTTP status, JSON-RPC code (and the code a 2026-07-28 client
// gets, where the revision differs), the form of the body, audit outcome, metric label and
// message. Nothing else builds these: protocol code and actors name a row, and the gateway's
// answers (gateway/pipeline/answers) write it. What an upstream returns passes through
// verbatim instead.
#pragma once

#include "protocol/outcome.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
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
    expired_cursor,              // the list changed since the cursor was sealed
    invalid_params,              // params gate reads itself (a URI, a level, a task id)
    unknown_resource,            // a URI no upstream lists
    unknown_completion_resource, // a completion's ref/resource no upstream lists
    unsupported_method,          // a method no upstream serves, without passthrough
    method_not_found,            // a method gate serves itself and does not know
    internal_error,              // a stage threw, an actor did not answer
    // JSON-RPC errors gate answers an upstream's request with, on its client's behalf.
    client_gone,           // the client of the bridged session disconnected
    server_request_denied, // the policy does not let this upstream ask this client
    definition_withheld,   // a tool whose definition changed, under a `block` pin
    hook_denied,           // policy.decisionHook said deny
    hook_failed,           // the decision hook did not decide, and onError is deny
    input_missing,         // a 2026-07-28 client's retry answered an input request badly
    input_not_retried,     // a 2026-07-28 client did not retry in time
    no_client_to_ask,      // a request on gate's shared session, which has no client
    account_needed,        // a user-account upstream: the user must connect an account first
    // JSON-RPC errors with an HTTP status: the message was read, and cannot be taken.
    parse_error,                // 400: the body is not JSON
    invalid_request,            // 400: not one JSON-RPC 2.0 message
    session_required,           // 400: a request after initialize without Mcp-Session-Id
    session_unknown,            // 404: an Mcp-Session-Id gate does not hold for this caller
    unsupported_version,        // 400: an MCP-Protocol-Version gate does not speak
    unknown_method_modern,      // 404: a 2026-07-28 request for a method the revision removed
    invalid_params_modern,      // 400: a 2026-07-28 request whose envelope or params are wrong
    header_mismatch,            // 400: a 2026-07-28 header that contradicts the body
    unsupported_version_modern, // 400: a stateless request of a revision gate does not serve
    missing_capability_modern,  // 400: a 2026-07-28 request needs a capability it did not declare
    caller_sessions_full,       // 429: the caller's share of sessions is in use
    sessions_full,              // 503: the session table is full of sessions in use
    answer_not_expected,        // 400: a client's answer to a request nobody is waiting for
    insufficient_scope,         // 403: a rule would allow it to a token with more scopes
    // HTTP refusals before any MCP handling: the body is {"error": message}, or for the
    // refusals of a caller, {"error": code, "error_description": message} (RFC 6750).
    global_rate_limited,     // server.rateLimit: 429 with Retry-After
    unauthenticated,         // 401 with the RFC 9728 challenge
    forbidden_host,          // 403
    forbidden_origin,        // 403
    body_too_large,          // 413
    ambiguous_tenant,        // 403: a principal two tenants select
    unsupported_media_type,  // 415: a POST that is not application/json
    not_acceptable,          // 406: a POST that cannot take JSON, or SSE
    method_not_allowed,      // 405: the MCP path with another HTTP method
    get_only,                // 405: an introspection endpoint with another HTTP method
    explain_invalid,         // 400: /api/explain's query names no invocation it can decide
    not_found,               // 404: no endpoint at this path
    stream_not_acceptable,   // 406: a GET stream that cannot take text/event-stream
    stream_session_required, // 400: a GET or DELETE without Mcp-Session-Id
    stream_session_unknown,  // 404: a GET or DELETE for a session gate does not hold
    too_many_streams,        // 429: a session's open GET streams at their bound
    // What the HTTP server refuses before a handler sees a request (transport/http's
    // server_refusal), worded here.
    connections_full, // 503 with Retry-After: connections at server.maxConnections
    header_too_large, // 431
    header_timeout,   // 408: the header did not arrive in time
    duplicate_host,   // 400: two Host fields
    // The token endpoint (auth.ema), RFC 6749 section 5.2: {"error": code, ...}, the code
    // being the row's name (token_request_invalid: "invalid_request").
    token_request_invalid,   // 400: the form cannot be read, or is not a form
    unsupported_grant_type,  // 400: a grant other than the JWT bearer grant
    invalid_grant,           // 400: the assertion does not verify, or was redeemed already
    slow_down,               // 429 with Retry-After: auth.ema.tokenRateLimitPerMinute
    temporarily_unavailable, // 503: too many assertions redeemed and not yet expired
    // The test-only fault hooks (gateway/entry/fault_hooks.hpp; GATE_TEST_FAULT_HOOKS).
    fault_target_unknown, // 404: no upstream of that id in the running snapshot
    fault_target_idle,    // 409: the upstream has no actor to kill right now
    // Not an error: the number of rows. Keep it last; the table and its test are checked
    // against it when compiled, so a row added above it cannot be left out of either.
    count_,
};
inline constexpr std::size_t gateway_error_count = static_cast<std::size_t>(gateway_error::count_);

// How the answer's body is written.
enum class answer_form : std::uint8_t {
    json_rpc,  // a JSON-RPC error object under the request's id
    plain,     // {"error": message}
    described, // {"error": code, "error_description": message}
};

// The protocol revision a client speaks, where a row's code depends on it.
enum class client_era : std::uint8_t { sessions, modern /* 2026-07-28 */ };

struct gateway_error_row {
    std::string_view name; // as docs and tests name it; the `error` code of a described body
    int http_status;
    int rpc_code;        // 0 for HTTP refusals
    int rpc_code_modern; // what a 2026-07-28 client is sent
    answer_form form;
    outcome audit_outcome; // spec: Audit event, outcome
    // gate_upstream_requests_total{outcome} for upstream errors,
    // gate_http_rejections_total{reason} for HTTP refusals, empty otherwise.
    std::string_view metric_label;
    std::string_view message; // the answer's text; a detail follows after ": "
};

const gateway_error_row& describe(gateway_error e);

// The row's message with each `{}` filled by the next argument (a missing one stays empty).
std::string gateway_error_text(gateway_error e, std::initializer_list<std::string_view> args = {});
// How many arguments the row's message takes.
std::size_t gateway_error_arguments(gateway_error e);

// The JSON-RPC error of a gateway-minted failure under `id`: the row's code for the client's
// era, and `text`, which gateway_error_text made from the row.
boost::json::object make_gateway_error(gateway_error e, const boost::json::value& id,
                                       std::string_view text,
                                       client_era era = client_era::sessions);

} // namespace gate::protocol
