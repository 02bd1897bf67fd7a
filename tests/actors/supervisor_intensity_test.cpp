// The supervisor's judgement under CAF's test_coordinator, in virtual time: a crashed child is
// restarted at once, a second crash within the window after a 100 ms pause (and not before),
// each restart counted; past 5 restarts within 60 s an upstream's actor is left stopped, its
// board refuses every call as given up (the io thread answers -32041) until a reload, and a
// process-wide actor's crash loop stops the supervisor itself.
#include "../unit/test_config.hpp"
#include "actors/guards/guard_board.hpp"
#include "actors/guards/guard_lease.hpp"
#include "actors/supervision/supervisor.hpp"
#include "coordinator_fixture.hpp"

#include <caf/all.hpp>

namespace gate {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kind(std::string_view name) {
    std::size_t i = 0;
    while (actors::supervised_kinds[i] != name)
        ++i;
    return i;
}
constexpr std::size_t upstream_kind = kind("upstream");
constexpr std::size_t task_keeper_kind = kind("task_keeper");
constexpr std::size_t router_kind = kind("router");

struct intensity_fixture : test::coordinator_fixture {
    std::shared_ptr<const actors::snapshot> snap = test::two_upstreams();
    std::shared_ptr<actors::actor_directory> directory =
        std::make_shared<actors::actor_directory>();
    std::shared_ptr<actors::supervision_tally> tally =
        std::make_shared<actors::supervision_tally>();
    std::shared_ptr<actors::guard_board> a =
        std::make_shared<actors::guard_board>(snap->upstream(0));
    std::shared_ptr<actors::guard_board> b =
        std::make_shared<actors::guard_board>(snap->upstream(1));
    actors::supervisor_actor supervisor = [this] {
        actors::supervised what;
        what.snap = snap;
        what.tally = tally;
        return spawn_supervisor(sys, std::move(what), directory);
    }();
    // Set when the supervisor stops, to its exit reason.
    std::optional<caf::error> supervisor_down;
    caf::actor watcher;

    intensity_fixture() {
        // (An argument: CAF 0.17 dereferences a null argument tuple for a function without
        // one, which UBSan reports.)
        watcher = sys.spawn(
            [this](caf::event_based_actor* self,
                   actors::supervisor_actor watched) -> caf::behavior {
                self->monitor(watched);
                self->set_down_handler([this](caf::down_msg& d) { supervisor_down = d.reason; });
                return {[](int) {}};
            },
            supervisor);
        caf::anon_send(supervisor, actors::adopt_upstreams{{a, b}});
        sched.run();
    }
    ~intensity_fixture() override {
        caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
        caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
        sched.run();
    }
    // Kills the actor of `board` the way a crash would, and lets the supervisor hear it.
    void crash(const std::shared_ptr<actors::guard_board>& board) {
        auto actor = board->actor();
        ASSERT_TRUE(actor);
        caf::anon_send_exit(actor, caf::exit_reason::kill);
        sched.run();
    }
    void pass(caf::timespan t) {
        sched.advance_time(t);
        sched.run();
    }
    std::int64_t restarts(std::size_t kind) const { return tally->restarts[kind].load(); }
    std::int64_t given_up(std::size_t kind) const { return tally->given_up[kind].load(); }
};

} // namespace

TEST_F(intensity_fixture, a_second_crash_within_the_window_is_restarted_after_its_pause_only) {
    auto first = a->actor();
    crash(a);
    EXPECT_TRUE(a->actor()); // the first restart is immediate
    EXPECT_NE(a->actor(), first);
    EXPECT_EQ(restarts(upstream_kind), 1);

    crash(a);
    EXPECT_FALSE(a->actor()); // paused: nothing asks the dead actor meanwhile
    pass(99ms);
    EXPECT_FALSE(a->actor());
    EXPECT_EQ(restarts(upstream_kind), 1);
    pass(1ms);
    EXPECT_TRUE(a->actor());
    EXPECT_EQ(restarts(upstream_kind), 2);

    crash(a); // the third waits twice as long
    pass(199ms);
    EXPECT_FALSE(a->actor());
    pass(1ms);
    EXPECT_TRUE(a->actor());
    EXPECT_EQ(restarts(upstream_kind), 3);
    EXPECT_EQ(given_up(upstream_kind), 0);
}

TEST_F(intensity_fixture, past_its_intensity_an_upstream_is_given_up_until_a_reload) {
    auto other = b->actor();
    for (int i = 0; i < 5; ++i) {
        crash(a);
        pass(1s); // longer than any pause so far
        ASSERT_TRUE(a->actor()) << i;
    }
    EXPECT_EQ(restarts(upstream_kind), 5);
    crash(a); // the sixth within 60 s
    pass(1min);
    EXPECT_FALSE(a->actor()); // never respawned
    EXPECT_EQ(restarts(upstream_kind), 5);
    EXPECT_EQ(given_up(upstream_kind), 1);
    // The io thread refuses every call from the board's view: given up, no retry hint.
    EXPECT_TRUE(a->view()->given_up);
    actors::guard_lease lease;
    auto d =
        lease.decide(*a->view(), actors::guard_use::invocation, std::chrono::steady_clock::now());
    ASSERT_TRUE(std::holds_alternative<actors::upstream_guard::refused>(d));
    EXPECT_EQ(std::get<actors::upstream_guard::refused>(d).why,
              actors::upstream_guard::refused::reason::given_up);
    EXPECT_EQ(b->actor(), other); // the other upstream is untouched
    EXPECT_FALSE(b->view()->given_up);
    EXPECT_FALSE(supervisor_down); // an upstream's crash loop never stops the supervisor

    // A reload keeping the upstream gives its actor a fresh start, with a fresh intensity.
    caf::anon_send(supervisor,
                   actors::reload_snapshot{actors::make_snapshot(snap->doc, 2), {a, b}});
    sched.run();
    ASSERT_TRUE(a->actor());
    EXPECT_FALSE(a->view()->given_up);
    EXPECT_EQ(b->actor(), other);
    crash(a);
    EXPECT_TRUE(a->actor()); // immediate again: the window starts empty
}

TEST_F(intensity_fixture, a_paused_restart_of_an_upstream_retired_meanwhile_spawns_nothing) {
    crash(a);
    crash(a); // paused for 100 ms
    caf::anon_send(supervisor, actors::reload_snapshot{actors::make_snapshot(snap->doc, 2), {b}});
    sched.run();
    pass(1s);
    EXPECT_FALSE(a->actor());
    EXPECT_EQ(restarts(upstream_kind), 1);
}

TEST_F(intensity_fixture, a_process_wide_actor_is_restarted_after_its_pause_only) {
    auto tasks = directory->load()->tasks;
    caf::anon_send_exit(tasks, caf::exit_reason::kill);
    sched.run();
    auto second = directory->load()->tasks;
    EXPECT_NE(second, tasks); // at once
    caf::anon_send_exit(second, caf::exit_reason::kill);
    sched.run();
    pass(99ms);
    EXPECT_EQ(directory->load()->tasks, second); // still the dead one: its restart waits
    pass(1ms);
    EXPECT_NE(directory->load()->tasks, second);
    EXPECT_EQ(restarts(task_keeper_kind), 2);
    EXPECT_FALSE(supervisor_down);
}

TEST_F(intensity_fixture, a_process_wide_actors_crash_loop_stops_the_supervisor_and_its_actors) {
    for (int i = 0; i < 5; ++i) {
        caf::anon_send_exit(directory->load()->routers[0], caf::exit_reason::kill);
        sched.run();
        pass(1s);
    }
    EXPECT_FALSE(supervisor_down);
    auto set = *directory->load();
    caf::anon_send_exit(set.routers[0], caf::exit_reason::kill);
    sched.run();
    ASSERT_TRUE(supervisor_down);
    EXPECT_NE(*supervisor_down, caf::make_error(caf::exit_reason::user_shutdown));
    EXPECT_TRUE(*supervisor_down); // an error: the program exits non-zero on it
    EXPECT_EQ(given_up(router_kind), 1);
    EXPECT_FALSE(a->actor()); // its actors ended with it
    std::optional<std::size_t> held = 999;
    caf::anon_send(set.tasks,
                   actors::task_count{actors::reply_to<std::size_t>([&](auto v) { held = v; })});
    sched.run();
    EXPECT_FALSE(held); // the task keeper is gone too
}

} // namespace gate
