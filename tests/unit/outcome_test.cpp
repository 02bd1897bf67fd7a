// gate_requests_total's outcome label holds only the spec's five values; every audit outcome
// maps to one of them.
#include "protocol/outcome.hpp"

#include <gtest/gtest.h>
#include <set>

using namespace gate::protocol;

TEST(Outcome, EveryAuditOutcomeCountsUnderOneOfTheFiveMetricValues) {
    const std::set<std::string_view> frozen{"ok", "error", "denied", "rate_limited",
                                            "upstream_down"};
    for (std::size_t i = 0; i < outcome_names.size(); ++i)
        EXPECT_TRUE(frozen.contains(metric_name(static_cast<outcome>(i)))) << outcome_names[i];
    EXPECT_EQ(metric_name(outcome::budget_exhausted), "rate_limited");
    EXPECT_EQ(metric_name(outcome::unauthenticated), "denied");
    EXPECT_EQ(metric_name(outcome::forbidden), "denied");
    EXPECT_EQ(metric_name(outcome::upstream_down), "upstream_down");
}
