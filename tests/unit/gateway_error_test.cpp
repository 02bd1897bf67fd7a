#include "protocol/gateway_error.hpp"

#include <array>
#include <gtest/gtest.h>
#include <set>
#include <string>

namespace gate::protocol {
namespace {

using ge = gateway_error;

// Every row as the spec ("Errors") and docs/configuration.md give it, in the enum's order,
// written out here rather than read from the constants the table uses.
struct expected_row {
    ge error;
    int http_status;
    int rpc_code;
    outcome audit_outcome;
    std::string_view metric_label;
};

constexpr std::array<expected_row, 16> expected = {{
    {ge::upstream_rate_limited, 200, -32040, outcome::rate_limited, "rate_limited"},
    {ge::upstream_circuit_open, 200, -32041, outcome::upstream_down, "circuit_open"},
    {ge::upstream_unreachable, 200, -32041, outcome::upstream_down, "connect_error"},
    {ge::upstream_failed, 200, -32041, outcome::upstream_down, "error"},
    {ge::all_upstreams_down, 200, -32041, outcome::upstream_down, ""},
    {ge::policy_denied, 200, -32042, outcome::denied, ""},
    {ge::unknown_namespace, 200, -32043, outcome::error, ""},
    {ge::budget_exhausted, 200, -32044, outcome::budget_exhausted, ""},
    {ge::unknown_task, 200, -32002, outcome::error, ""},
    {ge::invalid_cursor, 200, -32602, outcome::error, ""},
    {ge::global_rate_limited, 429, 0, outcome::rate_limited, "rate_limited"},
    {ge::unauthenticated, 401, 0, outcome::unauthenticated, "unauthenticated"},
    {ge::forbidden_host, 403, 0, outcome::forbidden, "forbidden_host"},
    {ge::forbidden_origin, 403, 0, outcome::forbidden, "forbidden_origin"},
    {ge::body_too_large, 413, 0, outcome::error, "body_too_large"},
    {ge::ambiguous_tenant, 403, 0, outcome::forbidden, "ambiguous_tenant"},
}};
// A row added to the enum fails this until it is written out above.
static_assert(expected.size() == gateway_error_count, "a gateway_error row is not checked");

TEST(gateway_error, every_row_has_the_spec_status_code_outcome_and_label) {
    for (std::size_t i = 0; i < gateway_error_count; ++i) {
        const auto& want = expected[i];
        ASSERT_EQ(static_cast<std::size_t>(want.error), i) << "expected rows out of enum order";
        const auto& r = describe(want.error);
        EXPECT_EQ(r.http_status, want.http_status) << i;
        EXPECT_EQ(r.rpc_code, want.rpc_code) << i;
        EXPECT_EQ(name(r.audit_outcome), name(want.audit_outcome)) << i;
        EXPECT_EQ(r.metric_label, want.metric_label) << i;
    }
}

TEST(gateway_error, every_row_is_a_json_rpc_error_or_an_http_refusal_with_a_spec_outcome) {
    const std::set<std::string_view> outcomes = {"error",           "denied",        "rate_limited",
                                                 "unauthenticated", "upstream_down", "forbidden",
                                                 "budget_exhausted"};
    for (std::size_t i = 0; i < gateway_error_count; ++i) {
        const auto& r = describe(static_cast<ge>(i));
        EXPECT_TRUE((r.http_status == 200) == (r.rpc_code != 0)) << i;
        // A minted error is never ok, and its outcome is one the spec names.
        EXPECT_TRUE(outcomes.contains(name(r.audit_outcome))) << i;
    }
}

TEST(gateway_error, the_answer_carries_the_rows_code) {
    for (std::size_t i = 0; i < gateway_error_count; ++i) {
        const auto e = static_cast<ge>(i);
        if (describe(e).rpc_code == 0)
            continue; // an HTTP refusal has no JSON-RPC answer
        auto answer = make_gateway_error(e, 7, "why");
        EXPECT_EQ(answer.at("error").as_object().at("code").to_number<int>(), describe(e).rpc_code)
            << i;
        EXPECT_EQ(answer.at("id").to_number<int>(), 7) << i;
    }
}

} // namespace
} // namespace gate::protocol
