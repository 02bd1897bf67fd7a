// The supervisor under CAF's test_coordinator: a failed actor is respawned from the current
// snapshot and published, the others keep their handles; a reload reaches the router; the
// supervisor's end is its actors' end.
#include "../unit/test_config.hpp"
#include "actors/guards/guard_board.hpp"
#include "actors/supervision/supervisor.hpp"
#include "coordinator_fixture.hpp"

#include <caf/all.hpp>

namespace gate {
namespace {

constexpr auto full = protocol::full_profile;

struct supervisor_fixture : test::coordinator_fixture {
    std::shared_ptr<const actors::snapshot> snap = test::two_upstreams();
    std::shared_ptr<actors::actor_directory> directory =
        std::make_shared<actors::actor_directory>();
    actors::supervisor_actor supervisor = [this] {
        actors::supervised what;
        what.snap = snap;
        what.audit = config::audit{};
        what.audit_outlet_.out = std::tmpfile();
        return spawn_supervisor(sys, std::move(what), directory);
    }();

    // Whether the published router keeps state for `s` (so a reload of `s` reached it): a
    // list stored for a snapshot it keeps is served from its cache; for any other snapshot it
    // serves from a federation made for that one question, and nothing stays cached.
    std::optional<bool> keeps(const std::shared_ptr<const actors::snapshot>& s,
                              protocol::list_kind kind = protocol::list_kind::tools) {
        auto router = directory->load()->router_for(kind);
        using answer = std::variant<actors::list_answer, actors::route_error>;
        std::vector<actors::fetched_list> fetched{{0, boost::json::array{}},
                                                  {1, boost::json::array{}}};
        caf::anon_send(router,
                       actors::complete_list{s, kind, full, std::move(fetched), std::nullopt, 1,
                                             actors::reply_to<answer>([](auto) {})});
        std::optional<bool> kept;
        caf::anon_send(router, actors::plan_list{s, kind, full,
                                                 actors::reply_to<actors::list_plan>([&](auto p) {
                                                     if (p)
                                                         kept = p->fetch.empty();
                                                 })});
        sched.run();
        return kept; // nullopt: the router did not answer
    }
    std::size_t tasks_held() {
        std::size_t n = 999;
        caf::anon_send(directory->load()->tasks, actors::task_count{actors::reply_to<std::size_t>(
                                                     [&](auto v) { n = v.value_or(998); })});
        sched.run();
        return n;
    }
    ~supervisor_fixture() override {
        caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
        sched.run();
    }
};

} // namespace

TEST_F(supervisor_fixture, a_failed_actor_is_respawned_and_published_while_the_others_stay) {
    sched.run();
    auto before = *directory->load();
    EXPECT_EQ(keeps(snap), true);
    caf::anon_send(before.tasks, actors::task_pin{"t", 1, "up-a"});
    sched.run();
    EXPECT_EQ(tasks_held(), 1u);

    caf::anon_send_exit(before.routers[0], caf::exit_reason::unhandled_exception);
    sched.run();
    auto after = *directory->load();
    EXPECT_NE(after.routers[0], before.routers[0]);
    EXPECT_EQ(after.routers[1], before.routers[1]); // the other shards keep their caches
    EXPECT_EQ(after.routers[2], before.routers[2]);
    EXPECT_EQ(after.tasks, before.tasks); // untouched, its records kept
    EXPECT_EQ(after.bridges, before.bridges);
    EXPECT_EQ(keeps(snap), true); // the new router answers, on the current snapshot
    EXPECT_EQ(tasks_held(), 1u);

    caf::anon_send_exit(after.tasks, caf::exit_reason::unhandled_exception);
    sched.run();
    EXPECT_NE(directory->load()->tasks, after.tasks);
    EXPECT_EQ(tasks_held(), 0u); // what a task keeper's restart loses (the probe finds them)
}

TEST_F(supervisor_fixture, a_reload_reaches_the_router_and_a_respawn_after_it_uses_it) {
    sched.run();
    auto next = actors::make_snapshot(snap->doc, 2);
    EXPECT_EQ(keeps(next), false); // not broadcast yet
    caf::anon_send(supervisor, actors::reload_snapshot{next, {}});
    sched.run();
    // One message to the supervisor reaches every router shard.
    for (auto kind : protocol::all_list_kinds)
        EXPECT_EQ(keeps(next, kind), true);
    caf::anon_send_exit(directory->load()->routers[0], caf::exit_reason::unhandled_exception);
    sched.run();
    EXPECT_EQ(keeps(next), true); // respawned on the snapshot of the last reload
    EXPECT_EQ(keeps(snap), false);
}

TEST_F(supervisor_fixture, its_end_is_its_actors_end_and_nothing_is_respawned) {
    sched.run();
    auto set = *directory->load();
    bool router_down = false;
    // (An argument: CAF 0.17 dereferences a null argument tuple for a function without one,
    // which UBSan reports.)
    auto watcher = sys.spawn(
        [&](caf::event_based_actor* self, actors::router_actor watched) -> caf::behavior {
            self->monitor(watched);
            self->set_down_handler([&](caf::down_msg&) { router_down = true; });
            return {[](int) {}}; // stays alive to hear of the router's end
        },
        set.routers[0]);
    sched.run();
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
    sched.run();
    EXPECT_TRUE(router_down);
    EXPECT_EQ(keeps(snap), std::nullopt);               // the published router no longer answers
    EXPECT_EQ(directory->load()->routers, set.routers); // not replaced
    caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
    sched.run();
}

} // namespace gate

namespace gate {

TEST_F(supervisor_fixture, each_upstream_gets_an_actor_and_a_crashed_one_is_respawned_alone) {
    auto a = std::make_shared<actors::guard_board>(snap->upstream(0));
    auto b = std::make_shared<actors::guard_board>(snap->upstream(1));
    caf::anon_send(supervisor, actors::adopt_upstreams{{a, b}});
    sched.run();
    auto actor_a = a->actor();
    auto actor_b = b->actor();
    ASSERT_TRUE(actor_a);
    ASSERT_TRUE(actor_b);
    caf::anon_send_exit(actor_a, caf::exit_reason::kill);
    sched.run();
    EXPECT_TRUE(a->actor());
    EXPECT_NE(a->actor(), actor_a); // respawned on the same board
    EXPECT_EQ(b->actor(), actor_b); // the other upstream's actor never stopped
    // The respawned actor answers.
    std::optional<actors::guard_answer> got;
    caf::anon_send(a->actor(), actors::guard_ask{actors::guard_use::invocation,
                                                 {},
                                                 actors::reply_to<actors::guard_answer>(
                                                     [&](auto v) { got = v; })});
    sched.run();
    EXPECT_TRUE(got);
}

TEST_F(supervisor_fixture, a_reload_keeps_kept_upstreams_actors_and_stops_retired_ones) {
    auto a = std::make_shared<actors::guard_board>(snap->upstream(0));
    auto b = std::make_shared<actors::guard_board>(snap->upstream(1));
    caf::anon_send(supervisor, actors::adopt_upstreams{{a, b}});
    sched.run();
    auto actor_a = a->actor();
    auto retired = b->actor();
    auto c = std::make_shared<actors::guard_board>(snap->upstream(1));
    caf::anon_send(supervisor,
                   actors::reload_snapshot{actors::make_snapshot(snap->doc, 2), {c, a}});
    sched.run();
    EXPECT_EQ(a->actor(), actor_a); // kept across a reload that reorders
    EXPECT_FALSE(b->actor());       // retired
    EXPECT_TRUE(c->actor());        // new
    std::optional<actors::guard_answer> got = actors::guard_answer{};
    caf::anon_send(retired, actors::guard_ask{
                                actors::guard_use::invocation,
                                {},
                                actors::reply_to<actors::guard_answer>([&](auto v) { got = v; })});
    sched.run();
    EXPECT_FALSE(got); // it stopped: the ask's channel answers nullopt
}

} // namespace gate

namespace gate {

TEST_F(supervisor_fixture, the_limiter_always_exists_and_is_respawned) {
    // Tenants' limits may arrive with a reload, so there is a limiter without server limits.
    EXPECT_TRUE(directory->load()->limiter);
    auto doc = std::make_shared<config::document>(*snap->doc);
    doc->server.rate_limit = config::server_rate_limit{};
    doc->server.rate_limit->requests_per_minute = 5;
    actors::supervised what;
    what.snap = actors::make_snapshot(doc, 1);
    auto dir = std::make_shared<actors::actor_directory>();
    auto sup = spawn_supervisor(sys, std::move(what), dir);
    sched.run();
    auto first = dir->load()->limiter;
    ASSERT_TRUE(first);
    caf::anon_send_exit(first, caf::exit_reason::kill);
    sched.run();
    EXPECT_TRUE(dir->load()->limiter);
    EXPECT_NE(dir->load()->limiter, first);
    caf::anon_send_exit(sup, caf::exit_reason::user_shutdown);
    sched.run();
}

} // namespace gate

namespace gate {

// The breaker actor is one of the process's actors: every upstream's board names it, a reload's
// new board too (and a retired one no longer), a circuit survives its upstream actor's crash,
// and a crash of the breaker actor itself is respawned with every circuit closed.
TEST_F(supervisor_fixture,
       the_breaker_actor_holds_every_circuit_and_is_respawned_with_them_closed) {
    auto a = std::make_shared<actors::guard_board>(snap->upstream(0));
    auto b = std::make_shared<actors::guard_board>(snap->upstream(1));
    caf::anon_send(supervisor, actors::adopt_upstreams{{a, b}});
    sched.run();
    auto breakers = directory->load()->breakers;
    ASSERT_TRUE(breakers);
    EXPECT_EQ(a->breaker(), breakers);
    EXPECT_EQ(b->breaker(), breakers);
    auto fail_a = [&] {
        caf::anon_send(a->breaker(), actors::breaker_outcome{a, false, false, "boom", {}});
        sched.run();
    };
    for (auto i = 0; i < snap->upstream(0).circuit_breaker.failure_threshold; ++i)
        fail_a();
    ASSERT_EQ(a->view()->breaker, actors::circuit_breaker::state::open);
    caf::anon_send_exit(a->actor(), caf::exit_reason::kill); // a's own actor: the circuit stays
    sched.run();
    EXPECT_EQ(a->view()->breaker, actors::circuit_breaker::state::open);

    auto c = std::make_shared<actors::guard_board>(snap->upstream(1));
    caf::anon_send(supervisor,
                   actors::reload_snapshot{actors::make_snapshot(snap->doc, 2), {a, c}});
    sched.run();
    EXPECT_EQ(c->breaker(), breakers);
    EXPECT_FALSE(b->breaker());                                          // retired
    EXPECT_EQ(a->view()->breaker, actors::circuit_breaker::state::open); // kept across the reload

    caf::anon_send_exit(breakers, caf::exit_reason::kill);
    sched.run();
    auto fresh = directory->load()->breakers;
    ASSERT_TRUE(fresh);
    EXPECT_NE(fresh, breakers);
    EXPECT_EQ(a->breaker(), fresh);
    EXPECT_EQ(c->breaker(), fresh);
    EXPECT_EQ(a->view()->breaker, actors::circuit_breaker::state::closed);
    std::optional<actors::guard_answer> got;
    caf::anon_send(fresh, actors::breaker_ask{
                              a, actors::reply_to<actors::guard_answer>([&](auto v) { got = v; })});
    sched.run();
    ASSERT_TRUE(got);
    EXPECT_TRUE(std::holds_alternative<actors::upstream_guard::granted>(*got));
}

} // namespace gate
