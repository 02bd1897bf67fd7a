#include "protocol/gateway_error.hpp"

#include "protocol/json_rpc.hpp"
#include "protocol/modern_request.hpp"

#include <array>

namespace gate::protocol {

namespace {
namespace ec = error_code;
namespace mc = modern_code;
using row = gateway_error_row;
using f = answer_form;
using o = outcome;

// One row per gateway_error, in the enum's order (checked below). A message's `{}` is filled
// by gateway_error_text's arguments, in order.
constexpr std::array<row, gateway_error_count> table = {{
    {"upstream_rate_limited", 200, ec::upstream_rate_limited, mc::upstream_rate_limited,
     f::json_rpc, o::rate_limited, "rate_limited", "upstream {} rate limit exceeded: {}"},
    {"upstream_circuit_open", 200, ec::upstream_unavailable, mc::upstream_unavailable, f::json_rpc,
     o::upstream_down, "circuit_open", "upstream {} unavailable: {}"},
    {"upstream_unreachable", 200, ec::upstream_unavailable, mc::upstream_unavailable, f::json_rpc,
     o::upstream_down, "connect_error", "upstream {} unavailable: {}"},
    {"upstream_failed", 200, ec::upstream_unavailable, mc::upstream_unavailable, f::json_rpc,
     o::upstream_down, "error", "upstream {} unavailable: {}"},
    {"all_upstreams_down", 200, ec::upstream_unavailable, mc::upstream_unavailable, f::json_rpc,
     o::upstream_down, "", "all upstreams are unavailable"},
    {"policy_denied", 200, ec::policy_denied, mc::policy_denied, f::json_rpc, o::denied, "",
     "policy denied {}"},
    {"unknown_namespace", 200, ec::unknown_namespace, mc::unknown_namespace, f::json_rpc, o::error,
     "", "unknown namespace in \"{}\": no configured upstream owns this name; refetch the list"},
    {"budget_exhausted", 200, ec::budget_exhausted, mc::budget_exhausted, f::json_rpc,
     o::budget_exhausted, "", "budget exhausted: {} upstream calls per {} for {}; it resets at {}"},
    {"unknown_task", 200, ec::unknown_task, ec::invalid_params, f::json_rpc, o::error, "",
     "unknown task: {} (no upstream holds it for this caller)"},
    {"invalid_cursor", 200, ec::invalid_params, ec::invalid_params, f::json_rpc, o::error, "",
     "invalid cursor: {}"},
    {"expired_cursor", 200, ec::invalid_params, ec::invalid_params, f::json_rpc, o::error, "",
     "expired cursor: the list changed, restart it from the beginning"},
    {"invalid_params", 200, ec::invalid_params, ec::invalid_params, f::json_rpc, o::error, "",
     "invalid params: {}"},
    {"unknown_resource", 200, ec::invalid_params, ec::invalid_params, f::json_rpc, o::error, "",
     "unknown resource URI \"{}\": no upstream lists it or a template that matches it"},
    {"unknown_completion_resource", 200, ec::invalid_params, ec::invalid_params, f::json_rpc,
     o::error, "", "unknown resource \"{}\" in completion reference"},
    {"unsupported_method", 200, ec::method_not_found, ec::method_not_found, f::json_rpc, o::error,
     "", "method \"{}\" is not supported by the gateway"},
    {"method_not_found", 200, ec::method_not_found, ec::method_not_found, f::json_rpc, o::error, "",
     "method not found: {}"},
    {"internal_error", 200, ec::internal_error, ec::internal_error, f::json_rpc, o::error, "",
     "internal error: {}"},
    {"client_gone", 200, ec::internal_error, ec::internal_error, f::json_rpc, o::error, "",
     "the client of this session has disconnected"},
    {"server_request_denied", 200, ec::policy_denied, mc::policy_denied, f::json_rpc, o::denied, "",
     "policy denied {} from upstream {} to this client (docs/security.md, server-initiated "
     "requests)"},
    {"definition_withheld", 200, ec::policy_denied, mc::policy_denied, f::json_rpc, o::denied, "",
     "tool \"{}\" is withheld: {} (definitions pinned with block); review the change, then lock "
     "it (gate definitions lock) and reload"},
    {"hook_denied", 200, ec::policy_denied, mc::policy_denied, f::json_rpc, o::denied, "",
     "the decision hook denied {}: {}"},
    {"hook_failed", 200, ec::policy_denied, mc::policy_denied, f::json_rpc, o::denied, "",
     "the decision hook could not decide {} ({}); denied, as policy.decisionHook.onError says"},
    {"input_missing", 200, ec::internal_error, ec::internal_error, f::json_rpc, o::error, "",
     "the client's retry answered {} with no result object"},
    {"input_not_retried", 200, ec::internal_error, ec::internal_error, f::json_rpc, o::error, "",
     "the client did not retry within {} s"},
    {"no_client_to_ask", 200, ec::method_not_found, ec::method_not_found, f::json_rpc, o::error, "",
     "gate's shared session has no client to ask; {} is bridged only during a client's call"},
    // MCP's URLElicitationRequiredError (-32042, with the login in its data); a 2026-07-28
    // client that declared no URL elicitation lacks the capability the call needs (-32021).
    {"account_needed", 200, ec::policy_denied, mc::missing_client_capability, f::json_rpc, o::error,
     "login_required",
     "upstream {} needs your own account there: open {} to connect it, then "
     "call again"},
    {"parse_error", 400, ec::parse_error, ec::parse_error, f::json_rpc, o::error, "",
     "parse error: {}"},
    {"invalid_request", 400, ec::invalid_request, ec::invalid_request, f::json_rpc, o::error, "",
     "invalid request: {}"},
    {"session_required", 400, ec::invalid_request, ec::invalid_request, f::json_rpc, o::error, "",
     "Mcp-Session-Id header is required after initialize"},
    {"session_unknown", 404, ec::invalid_request, ec::invalid_request, f::json_rpc, o::error, "",
     "unknown or expired session: initialize a new one"},
    {"unsupported_version", 400, ec::invalid_request, ec::invalid_request, f::json_rpc, o::error,
     "", "unsupported MCP-Protocol-Version: {}"},
    {"unknown_method_modern", 404, ec::method_not_found, ec::method_not_found, f::json_rpc,
     o::error, "", "method not found: {} does not exist in {}"},
    {"invalid_params_modern", 400, ec::invalid_params, ec::invalid_params, f::json_rpc, o::error,
     "", "invalid params: {}"},
    {"header_mismatch", 400, mc::header_mismatch, mc::header_mismatch, f::json_rpc, o::error, "",
     "{}"},
    {"unsupported_version_modern", 400, mc::unsupported_protocol_version,
     mc::unsupported_protocol_version, f::json_rpc, o::error, "",
     "unsupported protocol version {} without a session: this endpoint serves {} statelessly, "
     "earlier revisions after initialize"},
    {"missing_capability_modern", 400, mc::missing_client_capability, mc::missing_client_capability,
     f::json_rpc, o::error, "",
     "missing client capability: {} needs {} declared in _meta "
     "io.modelcontextprotocol/clientCapabilities"},
    {"caller_sessions_full", 429, ec::internal_error, ec::internal_error, f::json_rpc,
     o::rate_limited, "",
     "too many open sessions for this caller: it holds {} (its share of the session table, "
     "server.sessions.perPrincipal) and each is in use (an open GET stream or a request being "
     "answered); end one (DELETE) or retry later"},
    {"sessions_full", 503, ec::internal_error, ec::internal_error, f::json_rpc, o::error, "",
     "too many open sessions: the session table holds {} (server.sessions.max) and none that "
     "could make room is idle; retry later"},
    {"answer_not_expected", 400, ec::invalid_request, ec::invalid_request, f::json_rpc, o::error,
     "", "invalid request: no request with id {} is waiting for an answer in this session"},
    {"insufficient_scope", 403, ec::policy_denied, mc::policy_denied, f::json_rpc, o::denied, "",
     "policy denied {}: rule {} allows it to a token with the scope {}; ask the authorization "
     "server for one and retry (MCP step-up authorization)"},
    {"global_rate_limited", 429, 0, 0, f::plain, o::rate_limited, "rate_limited",
     "rate limited: {}"},
    {"unauthenticated", 401, 0, 0, f::described, o::unauthenticated, "unauthenticated", "{}"},
    {"forbidden_host", 403, 0, 0, f::plain, o::forbidden, "forbidden_host",
     "forbidden: Host is not on the allowlist"},
    {"forbidden_origin", 403, 0, 0, f::plain, o::forbidden, "forbidden_origin",
     "forbidden: Origin is not on the allowlist"},
    {"body_too_large", 413, 0, 0, f::plain, o::error, "body_too_large",
     "request body exceeds the limit of {} bytes"},
    {"ambiguous_tenant", 403, 0, 0, f::described, o::forbidden, "ambiguous_tenant",
     "the principal {} is selected by tenants {} and {}, and may belong to one only: the "
     "tenants' subjects overlap"},
    {"unsupported_media_type", 415, 0, 0, f::plain, o::error, "unsupported_media_type",
     "Content-Type must be application/json"},
    {"not_acceptable", 406, 0, 0, f::plain, o::error, "not_acceptable",
     "Accept must include application/json and text/event-stream"},
    {"method_not_allowed", 405, 0, 0, f::plain, o::error, "",
     "method not allowed: use POST, GET or DELETE"},
    {"get_only", 405, 0, 0, f::plain, o::error, "", "method not allowed: use GET"},
    {"explain_invalid", 400, 0, 0, f::plain, o::error, "", "invalid explain request: {}"},
    {"not_found", 404, 0, 0, f::plain, o::error, "", "not found"},
    {"stream_not_acceptable", 406, 0, 0, f::plain, o::error, "",
     "GET needs Accept: text/event-stream"},
    {"stream_session_required", 400, 0, 0, f::plain, o::error, "",
     "Mcp-Session-Id header is required"},
    {"stream_session_unknown", 404, 0, 0, f::plain, o::error, "", "unknown or expired session"},
    {"too_many_streams", 429, 0, 0, f::plain, o::error, "",
     "too many open streams for this session: at most {}"},
    {"connections_full", 503, 0, 0, f::plain, o::error, "connections_full",
     "too many open connections: at most {}"},
    {"header_too_large", 431, 0, 0, f::plain, o::error, "header_too_large",
     "request header larger than {} bytes"},
    {"header_timeout", 408, 0, 0, f::plain, o::error, "header_timeout",
     "the request header did not arrive within {} ms"},
    {"duplicate_host", 400, 0, 0, f::plain, o::error, "duplicate_host",
     "more than one Host header"},
    {"token_request_invalid", 400, 0, 0, f::described, o::error, "", "{}"},
    {"unsupported_grant_type", 400, 0, 0, f::described, o::error, "", "{}"},
    {"invalid_grant", 400, 0, 0, f::described, o::unauthenticated, "", "{}"},
    {"slow_down", 429, 0, 0, f::described, o::rate_limited, "oauth_token_rate_limited",
     "token endpoint rate limit of {} per minute reached"},
    {"temporarily_unavailable", 503, 0, 0, f::described, o::error, "",
     "too many assertions redeemed and not yet expired"},
    {"fault_target_unknown", 404, 0, 0, f::plain, o::error, "",
     "no upstream {} in the running snapshot"},
    {"fault_target_idle", 409, 0, 0, f::plain, o::error, "",
     "the upstream {} has no actor right now"},
}};

// Every enumerator has its row: a row left out would be an empty one at the table's end.
constexpr bool every_row_written() {
    for (const auto& r : table)
        if (r.name.empty() || r.message.empty() || r.http_status == 0)
            return false;
    return true;
}
static_assert(every_row_written(), "a gateway_error has no row in the table");

// The table's rows are in the enum's order: a row's name is its enumerator's.
constexpr bool row_named(gateway_error e, std::string_view name) {
    return table[static_cast<std::size_t>(e)].name == name;
}
static_assert(row_named(gateway_error::upstream_rate_limited, "upstream_rate_limited"));
static_assert(row_named(gateway_error::internal_error, "internal_error"));
static_assert(row_named(gateway_error::answer_not_expected, "answer_not_expected"));
static_assert(row_named(gateway_error::too_many_streams, "too_many_streams"));
static_assert(row_named(gateway_error::temporarily_unavailable, "temporarily_unavailable"));

} // namespace

const gateway_error_row& describe(gateway_error e) {
    return table[static_cast<std::size_t>(e)];
}

std::string gateway_error_text(gateway_error e, std::initializer_list<std::string_view> args) {
    auto message = describe(e).message;
    std::string text;
    text.reserve(message.size() + 32);
    auto arg = args.begin();
    for (std::size_t i = 0; i < message.size(); ++i) {
        if (message[i] == '{' && i + 1 < message.size() && message[i + 1] == '}') {
            if (arg != args.end())
                text.append(*arg++);
            ++i;
        } else {
            text.push_back(message[i]);
        }
    }
    return text;
}

std::size_t gateway_error_arguments(gateway_error e) {
    auto message = describe(e).message;
    std::size_t n = 0;
    for (auto at = message.find("{}"); at != std::string_view::npos;
         at = message.find("{}", at + 2))
        ++n;
    return n;
}

boost::json::object make_gateway_error(gateway_error e, const boost::json::value& id,
                                       std::string_view text, client_era era) {
    const auto& r = describe(e);
    return make_error(id, era == client_era::modern ? r.rpc_code_modern : r.rpc_code, text);
}

} // namespace gate::protocol
