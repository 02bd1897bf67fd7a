#include "protocol/gateway_error.hpp"

#include <array>
#include <gtest/gtest.h>
#include <set>
#include <string>

namespace gate::protocol {
namespace {

using ge = gateway_error;
using f = answer_form;

// Every row as the spec ("Errors"), docs/configuration.md and docs/security.md give it, in the
// enum's order, written out here rather than read from the constants the table uses.
struct expected_row {
    ge error;
    std::string_view name;
    int http_status;
    int rpc_code;
    answer_form form;
    outcome audit_outcome;
    std::string_view metric_label;
    std::size_t arguments; // how many `{}` its message takes
};

constexpr std::array<expected_row, gateway_error_count> expected = {{
    {ge::upstream_rate_limited, "upstream_rate_limited", 200, -32040, f::json_rpc,
     outcome::rate_limited, "rate_limited", 2},
    {ge::upstream_circuit_open, "upstream_circuit_open", 200, -32041, f::json_rpc,
     outcome::upstream_down, "circuit_open", 2},
    {ge::upstream_unreachable, "upstream_unreachable", 200, -32041, f::json_rpc,
     outcome::upstream_down, "connect_error", 2},
    {ge::upstream_failed, "upstream_failed", 200, -32041, f::json_rpc, outcome::upstream_down,
     "error", 2},
    {ge::all_upstreams_down, "all_upstreams_down", 200, -32041, f::json_rpc, outcome::upstream_down,
     "", 0},
    {ge::policy_denied, "policy_denied", 200, -32042, f::json_rpc, outcome::denied, "", 1},
    {ge::unknown_namespace, "unknown_namespace", 200, -32043, f::json_rpc, outcome::error, "", 1},
    {ge::budget_exhausted, "budget_exhausted", 200, -32044, f::json_rpc, outcome::budget_exhausted,
     "", 4},
    {ge::unknown_task, "unknown_task", 200, -32002, f::json_rpc, outcome::error, "", 1},
    {ge::invalid_cursor, "invalid_cursor", 200, -32602, f::json_rpc, outcome::error, "", 1},
    {ge::expired_cursor, "expired_cursor", 200, -32602, f::json_rpc, outcome::error, "", 0},
    {ge::invalid_params, "invalid_params", 200, -32602, f::json_rpc, outcome::error, "", 1},
    {ge::unknown_resource, "unknown_resource", 200, -32602, f::json_rpc, outcome::error, "", 1},
    {ge::unknown_completion_resource, "unknown_completion_resource", 200, -32602, f::json_rpc,
     outcome::error, "", 1},
    {ge::unsupported_method, "unsupported_method", 200, -32601, f::json_rpc, outcome::error, "", 1},
    {ge::method_not_found, "method_not_found", 200, -32601, f::json_rpc, outcome::error, "", 1},
    {ge::internal_error, "internal_error", 200, -32603, f::json_rpc, outcome::error, "", 1},
    {ge::client_gone, "client_gone", 200, -32603, f::json_rpc, outcome::error, "", 0},
    {ge::server_request_denied, "server_request_denied", 200, -32042, f::json_rpc, outcome::denied,
     "", 2},
    {ge::definition_withheld, "definition_withheld", 200, -32042, f::json_rpc, outcome::denied, "",
     2},
    {ge::hook_denied, "hook_denied", 200, -32042, f::json_rpc, outcome::denied, "", 2},
    {ge::hook_failed, "hook_failed", 200, -32042, f::json_rpc, outcome::denied, "", 2},
    {ge::input_missing, "input_missing", 200, -32603, f::json_rpc, outcome::error, "", 1},
    {ge::input_not_retried, "input_not_retried", 200, -32603, f::json_rpc, outcome::error, "", 1},
    {ge::no_client_to_ask, "no_client_to_ask", 200, -32601, f::json_rpc, outcome::error, "", 1},
    {ge::account_needed, "account_needed", 200, -32042, f::json_rpc, outcome::error,
     "login_required", 2},
    {ge::parse_error, "parse_error", 400, -32700, f::json_rpc, outcome::error, "", 1},
    {ge::invalid_request, "invalid_request", 400, -32600, f::json_rpc, outcome::error, "", 1},
    {ge::session_required, "session_required", 400, -32600, f::json_rpc, outcome::error, "", 0},
    {ge::session_unknown, "session_unknown", 404, -32600, f::json_rpc, outcome::error, "", 0},
    {ge::unsupported_version, "unsupported_version", 400, -32600, f::json_rpc, outcome::error, "",
     1},
    {ge::unknown_method_modern, "unknown_method_modern", 404, -32601, f::json_rpc, outcome::error,
     "", 2},
    {ge::invalid_params_modern, "invalid_params_modern", 400, -32602, f::json_rpc, outcome::error,
     "", 1},
    {ge::header_mismatch, "header_mismatch", 400, -32020, f::json_rpc, outcome::error, "", 1},
    {ge::unsupported_version_modern, "unsupported_version_modern", 400, -32022, f::json_rpc,
     outcome::error, "", 2},
    {ge::missing_capability_modern, "missing_capability_modern", 400, -32021, f::json_rpc,
     outcome::error, "", 2},
    {ge::caller_sessions_full, "caller_sessions_full", 429, -32603, f::json_rpc,
     outcome::rate_limited, "", 1},
    {ge::sessions_full, "sessions_full", 503, -32603, f::json_rpc, outcome::error, "", 1},
    {ge::answer_not_expected, "answer_not_expected", 400, -32600, f::json_rpc, outcome::error, "",
     1},
    {ge::insufficient_scope, "insufficient_scope", 403, -32042, f::json_rpc, outcome::denied, "",
     3},
    {ge::global_rate_limited, "global_rate_limited", 429, 0, f::plain, outcome::rate_limited,
     "rate_limited", 1},
    {ge::unauthenticated, "unauthenticated", 401, 0, f::described, outcome::unauthenticated,
     "unauthenticated", 1},
    {ge::forbidden_host, "forbidden_host", 403, 0, f::plain, outcome::forbidden, "forbidden_host",
     0},
    {ge::forbidden_origin, "forbidden_origin", 403, 0, f::plain, outcome::forbidden,
     "forbidden_origin", 0},
    {ge::body_too_large, "body_too_large", 413, 0, f::plain, outcome::error, "body_too_large", 1},
    {ge::ambiguous_tenant, "ambiguous_tenant", 403, 0, f::described, outcome::forbidden,
     "ambiguous_tenant", 3},
    {ge::unsupported_media_type, "unsupported_media_type", 415, 0, f::plain, outcome::error,
     "unsupported_media_type", 0},
    {ge::not_acceptable, "not_acceptable", 406, 0, f::plain, outcome::error, "not_acceptable", 0},
    {ge::method_not_allowed, "method_not_allowed", 405, 0, f::plain, outcome::error, "", 0},
    {ge::get_only, "get_only", 405, 0, f::plain, outcome::error, "", 0},
    {ge::explain_invalid, "explain_invalid", 400, 0, f::plain, outcome::error, "", 1},
    {ge::not_found, "not_found", 404, 0, f::plain, outcome::error, "", 0},
    {ge::stream_not_acceptable, "stream_not_acceptable", 406, 0, f::plain, outcome::error, "", 0},
    {ge::stream_session_required, "stream_session_required", 400, 0, f::plain, outcome::error, "",
     0},
    {ge::stream_session_unknown, "stream_session_unknown", 404, 0, f::plain, outcome::error, "", 0},
    {ge::too_many_streams, "too_many_streams", 429, 0, f::plain, outcome::error, "", 1},
    {ge::connections_full, "connections_full", 503, 0, f::plain, outcome::error, "connections_full",
     1},
    {ge::header_too_large, "header_too_large", 431, 0, f::plain, outcome::error, "header_too_large",
     1},
    {ge::header_timeout, "header_timeout", 408, 0, f::plain, outcome::error, "header_timeout", 1},
    {ge::duplicate_host, "duplicate_host", 400, 0, f::plain, outcome::error, "duplicate_host", 0},
    {ge::token_request_invalid, "token_request_invalid", 400, 0, f::described, outcome::error, "",
     1},
    {ge::unsupported_grant_type, "unsupported_grant_type", 400, 0, f::described, outcome::error, "",
     1},
    {ge::invalid_grant, "invalid_grant", 400, 0, f::described, outcome::unauthenticated, "", 1},
    {ge::slow_down, "slow_down", 429, 0, f::described, outcome::rate_limited,
     "oauth_token_rate_limited", 1},
    {ge::temporarily_unavailable, "temporarily_unavailable", 503, 0, f::described, outcome::error,
     "", 0},
    {ge::fault_target_unknown, "fault_target_unknown", 404, 0, f::plain, outcome::error, "", 1},
    {ge::fault_target_idle, "fault_target_idle", 409, 0, f::plain, outcome::error, "", 1},
}};
// A row added to the enum fails this until it is written out above.
static_assert(expected.size() == gateway_error_count, "a gateway_error row is not checked");

TEST(gateway_error, every_row_has_the_spec_status_code_form_outcome_label_and_message) {
    for (std::size_t i = 0; i < gateway_error_count; ++i) {
        const auto& want = expected[i];
        ASSERT_EQ(static_cast<std::size_t>(want.error), i) << "expected rows out of enum order";
        const auto& r = describe(want.error);
        EXPECT_EQ(r.name, want.name) << i;
        EXPECT_EQ(r.http_status, want.http_status) << want.name;
        EXPECT_EQ(r.rpc_code, want.rpc_code) << want.name;
        EXPECT_EQ(r.form, want.form) << want.name;
        EXPECT_EQ(name(r.audit_outcome), name(want.audit_outcome)) << want.name;
        EXPECT_EQ(r.metric_label, want.metric_label) << want.name;
        EXPECT_EQ(gateway_error_arguments(want.error), want.arguments) << want.name;
        EXPECT_FALSE(r.message.empty()) << want.name;
    }
}

// The rows whose code a 2026-07-28 client gets differs (docs/protocol-eras.md, "Gate's own
// errors"), written out; every other row's is the sessions' code.
struct modern_code_row {
    ge error;
    int rpc_code_modern;
};
constexpr modern_code_row modern_codes[] = {
    {ge::upstream_rate_limited, -31040}, {ge::upstream_circuit_open, -31041},
    {ge::upstream_unreachable, -31041},  {ge::upstream_failed, -31041},
    {ge::all_upstreams_down, -31041},    {ge::policy_denied, -31042},
    {ge::unknown_namespace, -31043},     {ge::budget_exhausted, -31044},
    {ge::unknown_task, -32602},          {ge::server_request_denied, -31042},
    {ge::insufficient_scope, -31042},    {ge::definition_withheld, -31042},
    {ge::hook_denied, -31042},           {ge::hook_failed, -31042},
    {ge::account_needed, -32021},
};

TEST(gateway_error, a_2026_07_28_client_gets_its_revisions_codes) {
    for (std::size_t i = 0; i < gateway_error_count; ++i) {
        const auto& r = describe(static_cast<ge>(i));
        int want = r.rpc_code;
        for (const auto& m : modern_codes)
            if (static_cast<std::size_t>(m.error) == i)
                want = m.rpc_code_modern;
        EXPECT_EQ(r.rpc_code_modern, want) << r.name;
    }
}

TEST(gateway_error, no_code_a_2026_07_28_client_gets_is_reserved_or_retired) {
    // -32020...-32099: the revision's own codes only (-32020 to -32022 are those gate uses);
    // -32002 and -32042 are retired. The rest of -32000...-32099 stays implementation-defined
    // in JSON-RPC, but the revision reserves it: gate's own codes live in -31040...-31044.
    for (std::size_t i = 0; i < gateway_error_count; ++i) {
        const auto& r = describe(static_cast<ge>(i));
        if (r.form != answer_form::json_rpc)
            continue;
        const int c = r.rpc_code_modern;
        const bool revisions_own = c >= -32022 && c <= -32020;
        EXPECT_FALSE(c >= -32099 && c <= -32000 && !revisions_own) << r.name << " " << c;
        EXPECT_NE(c, -32002) << r.name;
        EXPECT_NE(c, -32042) << r.name;
    }
}

TEST(gateway_error, a_json_rpc_row_has_a_code_and_an_http_refusal_has_none) {
    const std::set<std::string_view> outcomes = {"error",           "denied",        "rate_limited",
                                                 "unauthenticated", "upstream_down", "forbidden",
                                                 "budget_exhausted"};
    std::set<std::string_view> names;
    for (std::size_t i = 0; i < gateway_error_count; ++i) {
        const auto& r = describe(static_cast<ge>(i));
        EXPECT_EQ(r.form == answer_form::json_rpc, r.rpc_code != 0) << r.name;
        // Only a JSON-RPC error rides an HTTP 200.
        EXPECT_TRUE(r.http_status != 200 || r.form == answer_form::json_rpc) << r.name;
        // A minted error is never ok, and its outcome is one the spec names.
        EXPECT_TRUE(outcomes.contains(name(r.audit_outcome))) << r.name;
        EXPECT_TRUE(names.insert(r.name).second) << "two rows named " << r.name;
    }
}

TEST(gateway_error, the_text_fills_each_placeholder_in_order) {
    EXPECT_EQ(gateway_error_text(ge::upstream_circuit_open, {"b", "circuit open"}),
              "upstream b unavailable: circuit open");
    EXPECT_EQ(gateway_error_text(ge::session_required),
              "Mcp-Session-Id header is required after initialize");
    // A missing argument stays empty, an extra one is left out: never a throw on an error path.
    EXPECT_EQ(gateway_error_text(ge::unknown_task, {}),
              "unknown task:  (no upstream holds it for this caller)");
    EXPECT_EQ(gateway_error_text(ge::not_found, {"extra"}), "not found");
}

TEST(gateway_error, the_answer_carries_the_rows_code_for_the_clients_era) {
    for (std::size_t i = 0; i < gateway_error_count; ++i) {
        const auto e = static_cast<ge>(i);
        const auto& r = describe(e);
        if (r.form != answer_form::json_rpc)
            continue; // an HTTP refusal has no JSON-RPC answer
        auto answer = make_gateway_error(e, 7, "why");
        EXPECT_EQ(answer.at("error").as_object().at("code").to_number<int>(), r.rpc_code) << r.name;
        EXPECT_EQ(answer.at("error").as_object().at("message").as_string(), "why") << r.name;
        EXPECT_EQ(answer.at("id").to_number<int>(), 7) << r.name;
        auto modern = make_gateway_error(e, 7, "why", client_era::modern);
        EXPECT_EQ(modern.at("error").as_object().at("code").to_number<int>(), r.rpc_code_modern)
            << r.name;
    }
}

} // namespace
} // namespace gate::protocol
