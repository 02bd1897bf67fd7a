// Budgets: UTC calendar periods, all-or-none charges, the reset instant named.
#include "actors/guards/budget_ledger.hpp"

#include <algorithm>
#include <gtest/gtest.h>

using namespace gate;
namespace chr = std::chrono;

namespace {
gate::actors::wall_time at(int y, unsigned m, unsigned d, int h = 0, int min = 0) {
    return chr::sys_days(chr::year{y} / chr::month{m} / chr::day{d}) + chr::hours(h) +
           chr::minutes(min);
}
} // namespace

TEST(BudgetLedger, PeriodsAreUtcCalendarPeriods) {
    auto now = at(2026, 11, 25, 13, 45); // a Wednesday
    EXPECT_EQ(gate::actors::period_end("hour", now), at(2026, 11, 25, 14));
    EXPECT_EQ(gate::actors::period_end("day", now), at(2026, 11, 26));
    EXPECT_EQ(gate::actors::period_end("week", now), at(2026, 11, 30)); // the next Monday
    EXPECT_EQ(gate::actors::period_end("week", at(2026, 11, 30)), at(2026, 12, 7));
    EXPECT_EQ(gate::actors::period_end("month", now), at(2026, 12, 1));
    EXPECT_EQ(gate::actors::period_end("month", at(2026, 12, 31, 23, 59)), at(2027, 1, 1));
}

TEST(BudgetLedger, ChargesAllOrNoneAndRollsOverWithThePeriod) {
    gate::actors::budget_ledger ledger;
    config::budget server{"day", 3}, upstream{"hour", 2};
    gate::actors::budget_ledger::account_ref both[] = {{"server", &server},
                                                       {"upstream alpha", &upstream}};
    gate::actors::budget_ledger::account_ref server_only[] = {{"server", &server}};
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

TEST(BudgetLedger, AFleetsReservationsAreSpentAllOrNoneAndCountedHereToo) {
    gate::actors::budget_ledger ledger;
    config::budget server{"day", 100}, tenant{"hour", 5};
    gate::actors::budget_ledger::account_ref both[] = {{"server", &server},
                                                       {"tenant acme", &tenant}};
    auto now = at(2026, 11, 25, 10);
    // Nothing reserved yet: both need a reservation from the store before a charge.
    auto missing = ledger.unreserved(both, now);
    ASSERT_EQ(missing.size(), 2u);
    ledger.reserve(missing[0], 3, now);
    ledger.reserve(missing[1], 1, now);
    EXPECT_TRUE(ledger.unreserved(both, now).empty());
    EXPECT_FALSE(ledger.charge_reserved(both, now));
    // The tenant's reservation is spent; the server's two are left.
    missing = ledger.unreserved(both, now);
    ASSERT_EQ(missing.size(), 1u);
    EXPECT_EQ(missing[0].key, "tenant acme");
    // The fleet has spent the tenant's allowance: refused, and the server charged nothing.
    ledger.reserve(missing[0], 0, now);
    EXPECT_TRUE(ledger.unreserved(both, now).empty());
    auto refused = ledger.charge_reserved(both, now);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->key, "tenant acme");
    EXPECT_EQ(refused->resets, at(2026, 11, 25, 11));
    EXPECT_EQ(ledger.used("server", now), 1);
    // What was spent from reservations counts as used.
    gate::actors::budget_ledger::account_ref server_only[] = {{"server", &server}};
    EXPECT_FALSE(ledger.charge_reserved(server_only, now));
    EXPECT_EQ(ledger.used("server", now), 2);
    // A new period forgets the fleet's verdict and the reservations.
    auto next = at(2026, 11, 25, 11);
    EXPECT_EQ(ledger.unreserved(both, next).size(), 1u); // the server's one is left (same day)
    // A reload that raises the allowance asks the store again.
    config::budget raised{"hour", 50};
    gate::actors::budget_ledger::account_ref tenant_raised[] = {{"tenant acme", &raised}};
    ledger.reserve(tenant_raised[0], 0, next);
    EXPECT_TRUE(ledger.unreserved(tenant_raised, next).empty());
    config::budget raised_more{"hour", 60};
    gate::actors::budget_ledger::account_ref tenant_more[] = {{"tenant acme", &raised_more}};
    EXPECT_EQ(ledger.unreserved(tenant_more, next).size(), 1u);
}

TEST(BudgetLedger, StandingsSayWhatThisInstanceTookAndSpentUntilThePeriodEnds) {
    gate::actors::budget_ledger ledger;
    config::budget server{"hour", 100}, tenant{"day", 5};
    gate::actors::budget_ledger::account_ref both[] = {{"server", &server},
                                                       {"tenant acme", &tenant}};
    auto now = at(2026, 11, 25, 10, 30);
    ledger.reserve(both[0], 6, now);
    ledger.reserve(both[1], 2, now);
    EXPECT_FALSE(ledger.charge_reserved(both, now));
    ledger.reserve(both[1], 0, now); // the fleet has nothing left for the tenant
    auto s = ledger.standings(now);
    std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    ASSERT_EQ(s.size(), 2U);
    EXPECT_EQ(s[0].key, "server");
    EXPECT_EQ(s[0].allowance, 100);
    EXPECT_EQ(s[0].taken, 6);
    EXPECT_EQ(s[0].spent, 1);
    EXPECT_FALSE(s[0].exhausted);
    EXPECT_EQ(s[1].key, "tenant acme");
    EXPECT_EQ(s[1].taken, 2);
    EXPECT_TRUE(s[1].exhausted);
    // The server's hour ended, the tenant's day did not.
    s = ledger.standings(at(2026, 11, 25, 11, 0));
    ASSERT_EQ(s.size(), 1U);
    EXPECT_EQ(s[0].key, "tenant acme");
}
