// The breaker actor under CAF's test_coordinator, in virtual time: a circuit opens on the
// threshold'th counted failure, refuses while resting, hands the half-open probe to one asker,
// closes or reopens on its outcome, frees a probe that never reports; the fleet opens a closed
// circuit for the rest it names; each upstream's circuit is its own; a reload keeps the
// circuits of kept upstreams and starts new ones closed; a respawned actor starts every circuit
// closed and names itself on every board before it runs. What the io thread reads is the view
// on each board.
#include "actors/guards/breaker_actor.hpp"
#include "actors/guards/guard_board.hpp"
#include "coordinator_fixture.hpp"

#include <caf/all.hpp>

namespace gate {
namespace {

using namespace std::chrono_literals;
using state = actors::circuit_breaker::state;

std::shared_ptr<actors::guard_board> board_of(std::string id) {
    config::upstream u;
    u.id = std::move(id);
    u.urls = {"http://127.0.0.1:9000/mcp"};
    u.circuit_breaker.failure_threshold = 3;
    u.circuit_breaker.half_open_after_ms = 1000;
    u.timeouts.request_ms = 1000;
    return std::make_shared<actors::guard_board>(u);
}

bool is_probe(const std::optional<actors::guard_answer>& a) {
    return a && std::holds_alternative<actors::upstream_guard::granted>(*a) &&
           std::get<actors::upstream_guard::granted>(*a).probe;
}
std::optional<actors::upstream_guard::refused>
refusal(const std::optional<actors::guard_answer>& a) {
    if (a && std::holds_alternative<actors::upstream_guard::refused>(*a))
        return std::get<actors::upstream_guard::refused>(*a);
    return std::nullopt;
}

struct breaker_actor_fixture : test::coordinator_fixture {
    std::shared_ptr<actors::guard_board> board = board_of("a");
    actors::breaker_actor actor;

    void start(std::vector<std::shared_ptr<actors::guard_board>> boards = {}) {
        if (boards.empty())
            boards = {board};
        actor = spawn_breaker_actor(sys, boards);
        sched.run();
    }
    std::optional<actors::guard_answer> ask(const std::shared_ptr<actors::guard_board>& b) {
        std::optional<actors::guard_answer> got;
        caf::anon_send(actor, actors::breaker_ask{b, actors::reply_to<actors::guard_answer>(
                                                         [&](auto a) { got = a; })});
        sched.run();
        return got;
    }
    std::optional<actors::guard_answer> ask() { return ask(board); }
    bool report(const std::shared_ptr<actors::guard_board>& b, bool success, bool probe) {
        bool counted = false;
        caf::anon_send(actor, actors::breaker_outcome{b, success, probe, "boom",
                                                      actors::reply_to<bool>([&](auto c) {
                                                          counted = c.value_or(false);
                                                      })});
        sched.run();
        return counted;
    }
    bool fail(bool probe = false) { return report(board, false, probe); }
    actors::guard_view view() const { return *board->view(); }
    // Opens the circuit (three failures) and lets its rest pass: the next ask gets the probe.
    void open_and_rest() {
        fail();
        fail();
        fail();
        sched.advance_time(1s);
        sched.run();
    }
    ~breaker_actor_fixture() override {
        caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
        sched.run();
    }
};

} // namespace

TEST_F(breaker_actor_fixture, a_circuit_opens_rests_probes_and_closes_in_virtual_time) {
    start();
    EXPECT_EQ(view().breaker, state::closed);
    EXPECT_EQ(board->breaker(), actor);
    EXPECT_TRUE(fail());
    EXPECT_TRUE(fail());
    EXPECT_EQ(view().failures, 2);
    EXPECT_EQ(view().breaker, state::closed);
    EXPECT_TRUE(fail()); // the threshold'th: open, published before the failure is answered
    EXPECT_EQ(view().breaker, state::open);
    auto r = refusal(ask());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->why, actors::upstream_guard::refused::reason::circuit_open);
    EXPECT_EQ(r->retry_after, 1000ms);

    sched.advance_time(999ms);
    sched.run();
    EXPECT_TRUE(refusal(ask()));
    sched.advance_time(1ms);
    sched.run();
    EXPECT_EQ(view().shown(sched.clock().now()), state::half_open);
    EXPECT_TRUE(is_probe(ask())); // one asker gets the probe
    EXPECT_TRUE(view().probe_out);
    EXPECT_TRUE(refusal(ask()));            // the others are refused while it is out
    EXPECT_TRUE(report(board, true, true)); // answered once the circuit closed
    EXPECT_EQ(view().breaker, state::closed);
    EXPECT_EQ(view().failures, 0);
    auto closed = ask();
    ASSERT_TRUE(closed && !refusal(closed));
    EXPECT_FALSE(is_probe(closed));
}

TEST_F(breaker_actor_fixture, a_failed_probe_reopens_and_an_abandoned_one_is_handed_out_again) {
    start();
    open_and_rest();
    EXPECT_TRUE(is_probe(ask()));
    EXPECT_TRUE(fail(true));
    EXPECT_EQ(view().breaker, state::open); // for another halfOpenAfterMs
    EXPECT_EQ(view().reopens_at, sched.clock().now() + 1s);
    sched.advance_time(1s);
    sched.run();
    EXPECT_TRUE(is_probe(ask()));
    caf::anon_send(actor, actors::breaker_abandon{board});
    sched.run();
    EXPECT_FALSE(view().probe_out);
    EXPECT_TRUE(is_probe(ask())); // the next call probes
}

TEST_F(breaker_actor_fixture, a_success_resets_the_count_of_consecutive_failures) {
    start();
    fail();
    fail();
    report(board, true, false);
    EXPECT_EQ(view().failures, 0);
    fail();
    fail();
    EXPECT_EQ(view().breaker, state::closed);
}

TEST_F(breaker_actor_fixture, a_probe_that_never_reports_frees_its_slot) {
    start();
    open_and_rest();
    EXPECT_TRUE(is_probe(ask())); // and its outcome is lost
    EXPECT_TRUE(refusal(ask()));
    sched.advance_time(5999ms); // requestMs + grace, less 1 ms
    sched.run();
    EXPECT_TRUE(view().probe_out);
    sched.advance_time(1ms);
    sched.run();
    EXPECT_FALSE(view().probe_out);
    EXPECT_TRUE(is_probe(ask())); // the next call probes
}

TEST_F(breaker_actor_fixture, the_fleet_opens_a_closed_circuit_for_the_rest_it_names) {
    start();
    bool counted = false;
    caf::anon_send(actor,
                   actors::breaker_fleet_opened{board, 400ms, actors::reply_to<bool>([&](auto c) {
                                                    counted = c.value_or(false);
                                                })});
    sched.run();
    EXPECT_TRUE(counted); // answered once the view is published
    EXPECT_EQ(view().breaker, state::open);
    auto r = refusal(ask());
    ASSERT_TRUE(r);
    EXPECT_LE(r->retry_after, 400ms);
    // Its rest is the fleet's, not the configured 1000 ms: then one probe, as usual.
    sched.advance_time(400ms);
    sched.run();
    EXPECT_TRUE(is_probe(ask()));
    // An opening the fleet announces while this circuit is not closed changes nothing.
    caf::anon_send(actor, actors::breaker_fleet_opened{board, 5000ms, {}});
    sched.run();
    EXPECT_EQ(view().breaker, state::half_open);
}

TEST_F(breaker_actor_fixture, each_upstreams_circuit_is_its_own) {
    auto other = board_of("b");
    start({board, other});
    EXPECT_EQ(other->breaker(), actor);
    fail();
    fail();
    fail();
    EXPECT_EQ(view().breaker, state::open);
    EXPECT_EQ(other->view()->breaker, state::closed);
    EXPECT_EQ(other->view()->failures, 0);
    auto r = ask(other);
    ASSERT_TRUE(r && !refusal(r));
}

TEST_F(breaker_actor_fixture, a_reload_keeps_kept_circuits_starts_new_ones_closed_forgets_retired) {
    auto retired = board_of("b");
    start({board, retired});
    fail();
    fail();
    fail();
    report(retired, false, false);
    auto added = board_of("c");
    caf::anon_send(actor, actors::breaker_boards{{board, added}});
    sched.run();
    EXPECT_EQ(view().breaker, state::open); // kept, still resting
    EXPECT_TRUE(refusal(ask()));
    EXPECT_EQ(added->breaker(), actor);
    EXPECT_EQ(added->view()->breaker, state::closed);
    // A board it no longer holds (a call that began before the reload) is admitted, and its
    // outcomes count for nothing; the board keeps what it showed.
    auto r = ask(retired);
    ASSERT_TRUE(r && !refusal(r));
    EXPECT_TRUE(report(retired, false, false)); // answered all the same: nobody waits forever
    EXPECT_EQ(retired->view()->failures, 1);
}

TEST_F(breaker_actor_fixture, a_respawned_actor_starts_every_circuit_closed_on_the_same_boards) {
    start();
    fail();
    fail();
    fail();
    EXPECT_EQ(view().breaker, state::open);
    auto old = actor;
    caf::anon_send_exit(actor, caf::exit_reason::kill);
    sched.run();
    actor = actors::spawn_breaker_actor(sys, {board});
    EXPECT_EQ(view().breaker, state::closed); // before it has run: no stale view is read
    EXPECT_EQ(board->breaker(), actor);
    EXPECT_NE(actor, old);
    sched.run();
    EXPECT_FALSE(refusal(ask()));
}

// The probe timer is its own (actors/own_timers.hpp): its typed interface is the io thread's
// four messages and the supervisor's one.
static_assert(caf::detail::tl_size<actors::breaker_actor::signatures>::value == 5);

TEST_F(breaker_actor_fixture, a_message_off_its_interface_is_dropped_and_it_keeps_answering) {
    start();
    caf::anon_send(caf::actor_cast<caf::actor>(actor), 42);
    sched.run();
    EXPECT_TRUE(ask());
    EXPECT_EQ(board->breaker(), actor);
}

} // namespace gate
