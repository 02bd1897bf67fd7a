#include "protocol/gateway_error.hpp"
#include "protocol/json_rpc.hpp"

#include <gtest/gtest.h>
#include <set>
#include <string>

namespace gate::protocol {
namespace {

namespace ec = error_code;

TEST(gateway_error, the_spec_codes_statuses_and_outcomes) {
    EXPECT_EQ(describe(gateway_error::upstream_rate_limited).rpc_code, ec::upstream_rate_limited);
    EXPECT_EQ(describe(gateway_error::upstream_rate_limited).audit_outcome, outcome::rate_limited);
    for (auto e : {gateway_error::upstream_circuit_open, gateway_error::upstream_unreachable,
                   gateway_error::upstream_failed, gateway_error::all_upstreams_down}) {
        EXPECT_EQ(describe(e).rpc_code, ec::upstream_unavailable);
        EXPECT_EQ(describe(e).audit_outcome, outcome::upstream_down);
        EXPECT_EQ(describe(e).http_status, 200);
    }
    EXPECT_EQ(describe(gateway_error::upstream_circuit_open).metric_label, "circuit_open");
    EXPECT_EQ(describe(gateway_error::policy_denied).rpc_code, ec::policy_denied);
    EXPECT_EQ(describe(gateway_error::unknown_namespace).rpc_code, ec::unknown_namespace);
    EXPECT_EQ(describe(gateway_error::budget_exhausted).audit_outcome, outcome::budget_exhausted);
    EXPECT_EQ(describe(gateway_error::unknown_task).rpc_code, ec::unknown_task);
    EXPECT_EQ(describe(gateway_error::invalid_cursor).rpc_code, ec::invalid_params);
    EXPECT_EQ(describe(gateway_error::global_rate_limited).http_status, 429);
    EXPECT_EQ(describe(gateway_error::global_rate_limited).metric_label, "rate_limited");
    EXPECT_EQ(describe(gateway_error::unauthenticated).http_status, 401);
    EXPECT_EQ(describe(gateway_error::forbidden_host).http_status, 403);
    EXPECT_EQ(describe(gateway_error::body_too_large).http_status, 413);
}

TEST(gateway_error, every_row_is_a_json_rpc_error_or_an_http_refusal_with_a_spec_outcome) {
    const std::set<std::string_view> outcomes = {"ok",           "error",           "denied",
                                                 "rate_limited", "unauthenticated", "upstream_down",
                                                 "forbidden",    "budget_exhausted"};
    for (int i = 0; i <= static_cast<int>(gateway_error::body_too_large); ++i) {
        const auto& r = describe(static_cast<gateway_error>(i));
        EXPECT_TRUE((r.http_status == 200) == (r.rpc_code != 0)) << i;
        EXPECT_NE(r.audit_outcome, outcome::ok) << i; // a minted error is never ok
    }
}

} // namespace
} // namespace gate::protocol
