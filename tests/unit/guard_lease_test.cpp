// The io thread's side of the upstream guards: what it decides from the published view alone
// (no message to the actor), what it refuses, and when it must ask; slots of a batch are spent
// within their second and never carried past it.
#include "actors/guards/endpoint_rotation.hpp"
#include "actors/guards/guard_board.hpp"
#include "actors/guards/guard_lease.hpp"
#include "tests/support/guard_views.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

using namespace std::chrono_literals;
using clock = std::chrono::steady_clock;
const clock::time_point t0{1h};

bool admits(const actors::guard_lease::decision& d) {
    return std::holds_alternative<actors::guard_lease::admit_here>(d);
}
bool asks(const actors::guard_lease::decision& d) {
    return std::holds_alternative<actors::guard_lease::ask_actor>(d);
}

} // namespace

TEST(guard_lease, a_closed_unlimited_upstream_is_admitted_without_asking) {
    actors::guard_lease lease;
    actors::guard_view v;
    EXPECT_TRUE(admits(lease.decide(v, actors::guard_use::invocation, t0)));
    EXPECT_TRUE(admits(lease.decide(v, actors::guard_use::upkeep, t0)));
}

TEST(guard_lease, an_open_circuit_is_refused_until_its_rest_is_over_then_the_actor_is_asked) {
    actors::guard_lease lease;
    actors::guard_view v;
    v.breaker = actors::circuit_breaker::state::open;
    v.reopens_at = t0 + 1500ms;
    auto d = lease.decide(v, actors::guard_use::upkeep, t0);
    ASSERT_TRUE(std::holds_alternative<actors::upstream_guard::refused>(d));
    EXPECT_EQ(std::get<actors::upstream_guard::refused>(d).retry_after, 1500ms);
    EXPECT_EQ(std::get<actors::upstream_guard::refused>(d).why,
              actors::upstream_guard::refused::reason::circuit_open);
    EXPECT_TRUE(asks(lease.decide(v, actors::guard_use::invocation, t0 + 1500ms))); // the probe
}

TEST(guard_lease, an_upstream_the_supervisor_gave_up_on_refuses_everything_with_no_retry_hint) {
    actors::guard_lease lease;
    config::upstream cfg;
    cfg.urls = {"http://127.0.0.1:9/mcp"};
    auto v = test::given_up_view(cfg);
    for (auto use : {actors::guard_use::invocation, actors::guard_use::upkeep})
        for (auto t : {t0, t0 + 24h}) {
            auto d = lease.decide(v, use, t);
            ASSERT_TRUE(std::holds_alternative<actors::upstream_guard::refused>(d));
            EXPECT_EQ(std::get<actors::upstream_guard::refused>(d).why,
                      actors::upstream_guard::refused::reason::given_up);
            EXPECT_EQ(std::get<actors::upstream_guard::refused>(d).retry_after, 0ms);
        }
    EXPECT_EQ(v.shown(t0 + 24h), actors::circuit_breaker::state::open); // as /metrics shows it
}

TEST(guard_lease, a_half_open_circuit_with_its_probe_out_refuses_everyone_else) {
    actors::guard_lease lease;
    actors::guard_view v;
    v.breaker = actors::circuit_breaker::state::half_open;
    v.probe_out = true;
    EXPECT_TRUE(std::holds_alternative<actors::upstream_guard::refused>(
        lease.decide(v, actors::guard_use::invocation, t0)));
    v.probe_out = false; // abandoned: the next call asks for it
    EXPECT_TRUE(asks(lease.decide(v, actors::guard_use::invocation, t0)));
}

TEST(guard_lease, a_limited_upstream_spends_its_granted_slots_then_asks) {
    actors::guard_lease lease;
    actors::guard_view v;
    v.limited = true;
    EXPECT_TRUE(asks(lease.decide(v, actors::guard_use::invocation, t0)));
    EXPECT_TRUE(admits(lease.decide(v, actors::guard_use::upkeep, t0))); // upkeep takes no slot
    lease.grant(3, t0 + 1s, t0);                                         // the asking call took one
    EXPECT_EQ(lease.tokens(t0), 2);
    EXPECT_TRUE(admits(lease.decide(v, actors::guard_use::invocation, t0)));
    EXPECT_TRUE(admits(lease.decide(v, actors::guard_use::invocation, t0 + 10ms)));
    EXPECT_TRUE(asks(lease.decide(v, actors::guard_use::invocation, t0 + 20ms)));
}

TEST(guard_lease, slots_are_not_carried_past_the_window_slot_that_counted_them) {
    actors::guard_lease lease;
    actors::guard_view v;
    v.limited = true;
    lease.grant(10, t0 + 300ms, t0); // counted in the slot ending at t0 + 300 ms
    EXPECT_TRUE(admits(lease.decide(v, actors::guard_use::invocation, t0 + 299ms)));
    EXPECT_TRUE(asks(lease.decide(v, actors::guard_use::invocation, t0 + 300ms)));
    EXPECT_EQ(lease.tokens(t0 + 300ms), 0);
}

TEST(guard_lease, a_new_batch_replaces_what_is_left_and_keeps_its_own_deadline) {
    actors::guard_lease lease;
    actors::guard_view v;
    v.limited = true;
    lease.grant(10, t0 + 1s, t0);
    lease.grant(3, t0 + 2s, t0); // never adds to an earlier batch, never extends its deadline
    EXPECT_EQ(lease.tokens(t0), 2);
    EXPECT_TRUE(admits(lease.decide(v, actors::guard_use::invocation, t0 + 1500ms)));
    EXPECT_TRUE(admits(lease.decide(v, actors::guard_use::invocation, t0 + 1500ms)));
    EXPECT_TRUE(asks(lease.decide(v, actors::guard_use::invocation, t0 + 1500ms)));
}

TEST(rotation_order, starts_at_the_turn_and_puts_ejected_endpoints_last) {
    std::size_t turn = 0;
    EXPECT_EQ(actors::rotation_order({true, false, true}, turn),
              (std::vector<std::size_t>{0, 2, 1}));
    EXPECT_EQ(actors::rotation_order({true, false, true}, turn),
              (std::vector<std::size_t>{2, 0, 1}));
    EXPECT_EQ(actors::rotation_order({false, false}, turn), (std::vector<std::size_t>{0, 1}));
}

TEST(slot_lease, the_next_ask_carries_the_rate_the_last_batch_was_spent_at) {
    actors::slot_lease lease;
    EXPECT_EQ(lease.demand(t0).per_second, 0); // nothing measured: the first batch
    EXPECT_EQ(lease.demand(t0).most, actors::slot_demand::first);
    lease.grant(64, t0 + 1s, t0);
    for (int i = 0; i < 63; ++i)
        ASSERT_TRUE(lease.take(t0 + 10ms));
    auto d = lease.demand(t0 + 32ms); // 64 spent in 32 ms
    EXPECT_EQ(d.per_second, 2000);
    EXPECT_EQ(d.most, 64 * actors::slot_demand::growth);
}

TEST(slot_lease, a_batch_that_ran_out_of_time_is_measured_over_the_time_it_was_spendable) {
    actors::slot_lease lease;
    lease.grant(10, t0 + 500ms, t0);
    ASSERT_TRUE(lease.take(t0 + 100ms)); // two spent, the asking call's own included
    EXPECT_EQ(lease.demand(t0 + 10s).per_second, 4);
    EXPECT_EQ(lease.demand(t0 + 10s).most,
              actors::slot_demand::first); // a batch never shrinks below it
}

} // namespace gate
