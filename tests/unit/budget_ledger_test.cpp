// Budgets: UTC calendar periods, all-or-none charges, the reset instant named.
#include "actors/budget_ledger.hpp"

#include <gtest/gtest.h>

using namespace gate;
namespace chr = std::chrono;

namespace {
wall_time at(int y, unsigned m, unsigned d, int h = 0, int min = 0) {
    return chr::sys_days(chr::year{y} / chr::month{m} / chr::day{d}) + chr::hours(h) +
           chr::minutes(min);
}
} // namespace

TEST(BudgetLedger, PeriodsAreUtcCalendarPeriods) {
    auto now = at(2026, 11, 25, 13, 45); // a Wednesday
    EXPECT_EQ(period_end("hour", now), at(2026, 11, 25, 14));
    EXPECT_EQ(period_end("day", now), at(2026, 11, 26));
    EXPECT_EQ(period_end("week", now), at(2026, 11, 30)); // the next Monday
    EXPECT_EQ(period_end("week", at(2026, 11, 30)), at(2026, 12, 7));
    EXPECT_EQ(period_end("month", now), at(2026, 12, 1));
    EXPECT_EQ(period_end("month", at(2026, 12, 31, 23, 59)), at(2027, 1, 1));
}

TEST(BudgetLedger, ChargesAllOrNoneAndRollsOverWithThePeriod) {
    budget_ledger ledger;
    config::budget server{"day", 3}, upstream{"hour", 2};
    budget_ledger::account_ref both[] = {{"server", &server}, {"upstream alpha", &upstream}};
    budget_ledger::account_ref server_only[] = {{"server", &server}};
    auto now = at(2026, 11, 25, 10);
    EXPECT_FALSE(ledger.charge(both, now));
    EXPECT_FALSE(ledger.charge(both, now));
    auto refused = ledger.charge(both, now);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->key, "upstream alpha");
    EXPECT_EQ(refused->resets, at(2026, 11, 25, 11));
    EXPECT_EQ(ledger.used("server", now), 2); // the refused call charged nothing
    EXPECT_FALSE(ledger.charge(server_only, now));
    refused = ledger.charge(server_only, now);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->key, "server");
    EXPECT_EQ(refused->allowance, 3);
    EXPECT_EQ(refused->resets, at(2026, 11, 26));
    // The next day: both start afresh.
    EXPECT_FALSE(ledger.charge(both, at(2026, 11, 26, 0, 1)));
    EXPECT_EQ(ledger.used("server", at(2026, 11, 26, 0, 1)), 1);
}
