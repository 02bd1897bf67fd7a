// The budget keeper actor under CAF's test_coordinator, its wall clock driven by the actor
// clock (virtual time): reservations shrink to one as an allowance runs out and add up to it
// exactly; the allowance returns when its UTC calendar period rolls over (a day at midnight,
// an hour on the hour); reservations the fleet's store made count against this instance; a
// reload that raises an allowance gives the difference.
#include "actors/guards/budget_keeper.hpp"
#include "coordinator_fixture.hpp"

#include <caf/all.hpp>

namespace gate {
namespace {

using namespace std::chrono_literals;
namespace chr = std::chrono;

struct budget_keeper_fixture : test::coordinator_fixture {
    // A minute before midnight UTC, on a Sunday (the ISO week ends with the day).
    actors::wall_time origin = chr::sys_days(chr::year{2026} / 11 / 29) + 23h + 59min;
    chr::steady_clock::time_point start = sched.clock().now();
    actors::budget_keeper_actor keeper =
        actors::spawn_budget_keeper(sys, [this](chr::steady_clock::time_point t) {
            return origin + chr::duration_cast<actors::wall_time::duration>(t - start);
        });

    std::int64_t reserve(const std::string& account, const config::budget& b) {
        std::int64_t got = -1;
        caf::anon_send(keeper, actors::budget_reserve_ask{
                                   account, b, actors::reply_to<std::int64_t>([&](auto n) {
                                       if (n)
                                           got = *n;
                                   })});
        sched.run();
        return got;
    }
    // Reservations until none is left: their sizes.
    std::vector<std::int64_t> drain(const std::string& account, const config::budget& b) {
        std::vector<std::int64_t> sizes;
        for (auto n = reserve(account, b); n > 0; n = reserve(account, b))
            sizes.push_back(n);
        return sizes;
    }
    ~budget_keeper_fixture() override {
        caf::anon_send_exit(keeper, caf::exit_reason::user_shutdown);
        sched.run();
    }
};

std::int64_t sum(const std::vector<std::int64_t>& v) {
    std::int64_t s = 0;
    for (auto n : v)
        s += n;
    return s;
}

} // namespace

TEST_F(budget_keeper_fixture, a_day_is_spent_exactly_and_returns_at_midnight_utc) {
    config::budget day{"day", 100};
    auto sizes = drain("server", day);
    EXPECT_EQ(sum(sizes), 100);
    EXPECT_EQ(sizes.front(), 6); // 100/16
    EXPECT_EQ(sizes.back(), 1);  // the last ones one at a time
    sched.advance_time(59s);     // 23:59:59
    EXPECT_EQ(reserve("server", day), 0);
    sched.advance_time(1s); // midnight: a new day
    EXPECT_EQ(sum(drain("server", day)), 100);
}

TEST_F(budget_keeper_fixture,
       each_account_has_its_period_an_hour_rolls_on_the_hour_a_week_on_monday) {
    config::budget hour{"hour", 3}, week{"week", 2};
    EXPECT_EQ(sum(drain("upstream alpha", hour)), 3);
    EXPECT_EQ(sum(drain("tenant acme", week)), 2);
    sched.advance_time(60s); // Monday 00:00: a new hour and a new ISO week
    EXPECT_EQ(reserve("upstream alpha", hour), 1);
    EXPECT_EQ(reserve("tenant acme", week), 1);
    sched.advance_time(30min); // the same hour and week
    EXPECT_EQ(sum(drain("upstream alpha", hour)), 2);
    EXPECT_EQ(sum(drain("tenant acme", week)), 1);
    sched.advance_time(30min); // 01:00: the hour rolls, the week does not
    EXPECT_EQ(reserve("upstream alpha", hour), 1);
    EXPECT_EQ(reserve("tenant acme", week), 0);
}

TEST_F(budget_keeper_fixture,
       the_fleets_reservations_count_here_and_a_raised_allowance_gives_more) {
    config::budget day{"day", 10};
    caf::anon_send(keeper, actors::budget_reserved_elsewhere{"server", day, 9});
    sched.run();
    EXPECT_EQ(drain("server", day), std::vector<std::int64_t>{1});
    config::budget raised{"day", 14}; // a reload
    EXPECT_EQ(sum(drain("server", raised)), 4);
}

} // namespace gate
