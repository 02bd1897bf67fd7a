// The upstream actor under CAF's test_coordinator, in virtual time: the rate limit grants slots
// and refuses a full window until it slides; an ejected replica rests and returns; active
// health asks the io thread for probe rounds on its interval and applies the verdicts; a
// respawned actor starts its own part over and leaves the circuit (the breaker actor's:
// tests/actors/breaker_actor_test.cpp) as it was. What the io thread reads is the view the
// actor publishes on the board.
#include "actors/federation/upstream_actor.hpp"
#include "actors/guards/guard_board.hpp"
#include "coordinator_fixture.hpp"

#include <caf/all.hpp>

namespace gate {
namespace {

using namespace std::chrono_literals;
using state = actors::circuit_breaker::state;

config::upstream upstream_config(std::size_t urls = 1) {
    config::upstream u;
    u.id = "a";
    for (std::size_t i = 0; i < urls; ++i)
        u.urls.push_back("http://127.0.0.1:" + std::to_string(9000 + i) + "/mcp");
    u.circuit_breaker.failure_threshold = 3;
    u.circuit_breaker.half_open_after_ms = 1000;
    u.timeouts.request_ms = 1000;
    return u;
}

struct upstream_actor_fixture : test::coordinator_fixture {
    std::shared_ptr<actors::guard_board> board;
    actors::upstream_actor actor;

    void start(config::upstream cfg) {
        board = std::make_shared<actors::guard_board>(std::move(cfg));
        actor = spawn_upstream_actor(sys, board);
        sched.run();
    }
    std::optional<actors::guard_answer> ask(actors::guard_use use = actors::guard_use::invocation,
                                            actors::slot_demand demand = {}) {
        std::optional<actors::guard_answer> got;
        caf::anon_send(actor, actors::guard_ask{use, demand,
                                                actors::reply_to<actors::guard_answer>(
                                                    [&](auto a) { got = a; })});
        sched.run();
        return got;
    }
    actors::guard_view view() const { return *board->view(); }
    ~upstream_actor_fixture() override {
        caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
        sched.run();
    }
};

std::optional<actors::upstream_guard::refused>
refusal(const std::optional<actors::guard_answer>& a) {
    if (a && std::holds_alternative<actors::upstream_guard::refused>(*a))
        return std::get<actors::upstream_guard::refused>(*a);
    return std::nullopt;
}

} // namespace

TEST_F(upstream_actor_fixture, the_rate_limit_grants_batches_and_refuses_a_full_window) {
    auto cfg = upstream_config();
    cfg.rate_limit = config::rate_limit{3};
    start(cfg);
    EXPECT_TRUE(view().limited);
    for (int i = 0; i < 3; ++i) {
        auto a = ask();
        ASSERT_TRUE(a && std::holds_alternative<actors::upstream_guard::granted>(*a)) << i;
        EXPECT_EQ(std::get<actors::upstream_guard::granted>(*a).tokens, 1); // a low limit is exact
    }
    auto r = refusal(ask());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->why, actors::upstream_guard::refused::reason::rate_limited);
    EXPECT_EQ(r->retry_after, 60s); // all three were taken in the same second

    EXPECT_FALSE(refusal(ask(actors::guard_use::upkeep))); // gate's upkeep is not counted
    sched.advance_time(60s);
    sched.run();
    EXPECT_FALSE(refusal(ask())); // the window slid
}

TEST_F(upstream_actor_fixture, a_high_limit_is_granted_in_batches) {
    auto cfg = upstream_config();
    cfg.rate_limit = config::rate_limit{1'000'000};
    start(cfg);
    auto a = ask();
    ASSERT_TRUE(a && std::holds_alternative<actors::upstream_guard::granted>(*a));
    EXPECT_EQ(std::get<actors::upstream_guard::granted>(*a).tokens, actors::slot_demand::first);
}

TEST_F(upstream_actor_fixture, a_batch_covers_what_the_asker_spends_before_the_second_ends) {
    auto cfg = upstream_config();
    cfg.rate_limit = config::rate_limit{1'000'000'000};
    start(cfg);
    sched.advance_time(1750ms); // a quarter of the window slot left
    sched.run();
    // 4,000 calls a second: 1,000 before the slot ends, a quarter more, and the asking call.
    auto a = ask(actors::guard_use::invocation, {4000, 100'000});
    ASSERT_TRUE(a && std::holds_alternative<actors::upstream_guard::granted>(*a));
    EXPECT_EQ(std::get<actors::upstream_guard::granted>(*a).tokens, 1 + 1250);
    EXPECT_EQ(std::get<actors::upstream_guard::granted>(*a).until.time_since_epoch(), 2s);
    // Capped by how far the batch may grow.
    a = ask(actors::guard_use::invocation, {4000, 256});
    EXPECT_EQ(std::get<actors::upstream_guard::granted>(*a).tokens, 256);
}

TEST_F(upstream_actor_fixture, an_ejected_replica_rests_then_returns) {
    start(upstream_config(2));
    EXPECT_EQ(view().in_rotation, (std::vector<bool>{true, true}));
    caf::anon_send(actor, actors::endpoint_down{1, "connection refused"});
    sched.run();
    EXPECT_EQ(view().in_rotation, (std::vector<bool>{true, false}));
    sched.advance_time(999ms);
    sched.run();
    EXPECT_EQ(view().in_rotation, (std::vector<bool>{true, false}));
    sched.advance_time(1ms);
    sched.run();
    EXPECT_EQ(view().in_rotation, (std::vector<bool>{true, true}));
}

TEST_F(upstream_actor_fixture, active_health_asks_for_rounds_on_its_interval_and_applies_them) {
    auto cfg = upstream_config(2);
    cfg.health_check_interval_ms = 5000;
    board = std::make_shared<actors::guard_board>(cfg);
    int rounds = 0;
    board->on_probe_round(&rounds, [&] { ++rounds; });
    actor = spawn_upstream_actor(sys, board);
    sched.run();
    EXPECT_EQ(rounds, 1); // at once
    caf::anon_send(actor, actors::probe_verdicts{{std::nullopt, std::string("hung")}});
    sched.run();
    EXPECT_EQ(view().in_rotation, (std::vector<bool>{true, false}));
    sched.advance_time(4999ms);
    sched.run();
    EXPECT_EQ(rounds, 1);
    EXPECT_EQ(view().in_rotation, (std::vector<bool>{true, false})); // no rest with probes
    sched.advance_time(1ms);
    sched.run();
    EXPECT_EQ(rounds, 2);
    caf::anon_send(actor, actors::probe_verdicts{{std::nullopt, std::nullopt}});
    sched.run();
    EXPECT_EQ(view().in_rotation, (std::vector<bool>{true, true})); // restored at once
    // Verdicts nobody asked for (a predecessor's round), between two rounds: they count, but
    // start no second chain of rounds.
    sched.advance_time(2000ms);
    sched.run();
    caf::anon_send(actor, actors::probe_verdicts{{std::nullopt, std::string("down")}});
    sched.run();
    EXPECT_EQ(view().in_rotation, (std::vector<bool>{true, false}));
    sched.advance_time(3000ms);
    sched.run();
    EXPECT_EQ(rounds, 3);
    caf::anon_send(actor, actors::probe_verdicts{{std::nullopt, std::nullopt}});
    sched.run();
    sched.advance_time(2500ms);
    sched.run();
    EXPECT_EQ(rounds, 3); // a second chain would have run a round here
    sched.advance_time(2500ms);
    sched.run();
    EXPECT_EQ(rounds, 4);
}

TEST_F(upstream_actor_fixture, a_round_that_never_reports_is_given_up_and_probing_goes_on) {
    auto cfg = upstream_config(2);
    cfg.health_check_interval_ms = 5000;
    board = std::make_shared<actors::guard_board>(cfg);
    int rounds = 0;
    board->on_probe_round(&rounds, [&] { ++rounds; });
    actor = spawn_upstream_actor(sys, board);
    sched.run();
    EXPECT_EQ(rounds, 1);        // and it never reports
    sched.advance_time(10999ms); // interval + requestMs + grace, less 1 ms
    sched.run();
    EXPECT_EQ(rounds, 1);
    sched.advance_time(1ms);
    sched.run();
    sched.advance_time(5000ms); // given up: the next round one interval later
    sched.run();
    EXPECT_EQ(rounds, 2);
}

} // namespace gate

namespace gate {

// The actor's timers are its own (actors/own_timers.hpp): its typed interface is the io
// thread's four messages, so no caller can send it a timer.
static_assert(caf::detail::tl_size<actors::upstream_actor::signatures>::value == 4);

TEST_F(upstream_actor_fixture, a_respawned_actor_starts_its_own_part_over_and_leaves_the_circuit) {
    auto cfg = upstream_config(2);
    start(cfg);
    caf::anon_send(actor, actors::endpoint_down{1, "connection refused"});
    sched.run();
    board->publish_breaker(state::open, false, sched.clock().now() + 1s, 3); // the breaker's
    board->give_up();
    auto old = actor;
    caf::anon_send_exit(actor, caf::exit_reason::kill);
    sched.run();
    actor = spawn_upstream_actor(sys, board);
    // Before it has run: its fresh part is on the board, no stale one is read.
    EXPECT_EQ(view().in_rotation, (std::vector<bool>{true, true}));
    EXPECT_FALSE(view().given_up);
    EXPECT_EQ(view().breaker, state::open);
    EXPECT_EQ(view().failures, 3);
    EXPECT_EQ(board->actor(), actor);
    EXPECT_NE(actor, old);
    sched.run();
    EXPECT_FALSE(refusal(ask()));
}

TEST_F(upstream_actor_fixture, a_message_off_its_interface_is_dropped_and_it_keeps_answering) {
    start(upstream_config());
    caf::anon_send(caf::actor_cast<caf::actor>(actor), 42);
    sched.run();
    EXPECT_TRUE(ask());
    EXPECT_EQ(board->actor(), actor);
}

} // namespace gate
