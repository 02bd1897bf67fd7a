// The bridge keeper under CAF's test_coordinator: the idle sweep in virtual time, the
// cancellation and answer lookups, the fan-out of resource updates, and ended sessions.
#include "actors/bridging/bridge_keeper.hpp"
#include "coordinator_fixture.hpp"

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <gtest/gtest.h>

using namespace gate;
using namespace std::chrono_literals;

namespace {

struct keeper_fixture : test::coordinator_fixture {
    std::vector<gate::actors::retired_bridge> retired;
    gate::actors::bridge_keeper_actor keeper = spawn_bridge_keeper(
        sys,
        [this](std::vector<gate::actors::retired_bridge> gone) {
            retired.insert(retired.end(), gone.begin(), gone.end());
        },
        actors::bridge_timing{5min});

    template <class T, class Msg> std::optional<T> ask(Msg make) {
        std::optional<T> got;
        bool fired = false;
        caf::anon_send(keeper, make(actors::reply_to<T>([&](std::optional<T> v) {
                           fired = true;
                           got = std::move(v);
                       })));
        sched.run();
        EXPECT_TRUE(fired);
        return got;
    }
    // Moves virtual time forward in sweep-sized steps, running what falls due.
    void pass(std::chrono::seconds total) {
        for (auto t = 0s; t < total; t += 30s) {
            sched.advance_time(30s);
            sched.run();
        }
    }
    ~keeper_fixture() override {
        caf::anon_send_exit(keeper, caf::exit_reason::user_shutdown);
        sched.run();
    }
};

} // namespace

TEST_F(keeper_fixture, an_idle_bridge_is_swept_after_five_minutes_of_virtual_time) {
    caf::anon_send(keeper, actors::bridge_used{"alice", "u0"});
    caf::anon_send(keeper, actors::bridge_used{"bob", "u1"});
    sched.run();
    pass(4min + 30s);
    caf::anon_send(keeper, actors::bridge_used{"bob", "u1"}); // bob keeps using his
    sched.run();
    EXPECT_TRUE(retired.empty());
    pass(60s);
    EXPECT_EQ(retired, (std::vector<gate::actors::retired_bridge>{{"alice", "u0"}}));
    pass(5min);
    EXPECT_EQ(retired, (std::vector<gate::actors::retired_bridge>{{"alice", "u0"}, {"bob", "u1"}}));
}

TEST_F(keeper_fixture, a_long_call_keeps_its_bridge_past_the_idle_limit) {
    caf::anon_send(keeper, actors::bridge_call_started{"alice", "7", "u0", boost::json::value(70)});
    sched.run();
    pass(20min);
    EXPECT_TRUE(retired.empty());
    caf::anon_send(keeper, actors::bridge_call_ended{"alice", "7"});
    sched.run();
    pass(5min + 30s);
    EXPECT_EQ(retired, (std::vector<gate::actors::retired_bridge>{{"alice", "u0"}}));
}

TEST_F(keeper_fixture, a_cancellation_is_routed_to_the_upstream_request_while_the_call_runs) {
    caf::anon_send(keeper,
                   actors::bridge_call_started{"alice", "\"c1\"", "u1", boost::json::value(12)});
    auto found = ask<std::optional<actors::call_target>>([](auto r) {
        return actors::bridge_cancel_lookup{"alice", "\"c1\"", std::move(r)};
    });
    ASSERT_TRUE(found && *found);
    EXPECT_EQ((*found)->upstream, "u1");
    EXPECT_EQ((*found)->upstream_id, boost::json::value(12));
    // Bob cannot cancel alice's call by guessing its id.
    auto foreign = ask<std::optional<actors::call_target>>([](auto r) {
        return actors::bridge_cancel_lookup{"bob", "\"c1\"", std::move(r)};
    });
    ASSERT_TRUE(foreign);
    EXPECT_FALSE(*foreign);
    caf::anon_send(keeper, actors::bridge_call_ended{"alice", "\"c1\""});
    auto late = ask<std::optional<actors::call_target>>([](auto r) {
        return actors::bridge_cancel_lookup{"alice", "\"c1\"", std::move(r)};
    });
    ASSERT_TRUE(late);
    EXPECT_FALSE(*late);
}

TEST_F(keeper_fixture, updates_fan_out_to_the_subscribed_sessions) {
    caf::anon_send(keeper, actors::bridge_subscription{"alice", "u0", "demo://r", true});
    caf::anon_send(keeper, actors::bridge_subscription{"bob", "u0", "demo://r", true});
    caf::anon_send(keeper, actors::bridge_subscription{"carol", "u0", "demo://other", true});
    caf::anon_send(keeper, actors::bridge_subscription{"bob", "u0", "demo://r", false});
    auto shared = ask<std::vector<std::string>>([](auto r) {
        return actors::bridge_updated{"u0", "demo://r", std::nullopt, std::move(r)};
    });
    EXPECT_EQ(shared, std::vector<std::string>{"alice"});
    auto own = ask<std::vector<std::string>>([](auto r) {
        return actors::bridge_updated{"u0", "demo://other", std::string("carol"), std::move(r)};
    });
    EXPECT_EQ(own, std::vector<std::string>{"carol"});
}

TEST_F(keeper_fixture, an_ended_session_retires_its_bridges_at_once) {
    caf::anon_send(keeper, actors::bridge_used{"alice", "u0"});
    caf::anon_send(keeper, actors::bridge_used{"alice", "u1"});
    caf::anon_send(keeper, actors::bridge_subscription{"alice", "u0", "demo://r", true});
    caf::anon_send(keeper, actors::bridge_session_ended{"alice"});
    sched.run();
    EXPECT_EQ(retired,
              (std::vector<gate::actors::retired_bridge>{{"alice", "u0"}, {"alice", "u1"}}));
    auto after = ask<std::vector<std::string>>([](auto r) {
        return actors::bridge_updated{"u0", "demo://r", std::nullopt, std::move(r)};
    });
    EXPECT_TRUE(after && after->empty());
    pass(10min);
    EXPECT_EQ(retired.size(), 2u); // nothing retired twice
}

TEST_F(keeper_fixture, a_batch_applies_its_events_in_order) {
    std::vector<gate::actors::bridge_event> events;
    events.push_back(actors::bridge_call_started{"alice", "1", "u0", boost::json::value(5)});
    events.push_back(actors::bridge_call_ended{"alice", "1"});
    events.push_back(actors::bridge_subscription{"alice", "u0", "demo://r", true});
    caf::anon_send(keeper, actors::bridge_batch{std::move(events)});
    auto cancel = ask<std::optional<actors::call_target>>([](auto r) {
        return actors::bridge_cancel_lookup{"alice", "1", std::move(r)};
    });
    ASSERT_TRUE(cancel);
    EXPECT_FALSE(*cancel); // started, then ended: nothing left to cancel
    auto subs = ask<std::vector<std::string>>([](auto r) {
        return actors::bridge_updated{"u0", "demo://r", std::nullopt, std::move(r)};
    });
    EXPECT_EQ(subs, std::vector<std::string>{"alice"});
    // The ended session in a later batch takes everything with it.
    caf::anon_send(keeper, actors::bridge_batch{{actors::bridge_session_ended{"alice"}}});
    sched.run();
    EXPECT_EQ(retired, (std::vector<gate::actors::retired_bridge>{{"alice", "u0"}}));
}

TEST_F(keeper_fixture, each_bridged_session_is_an_actor_that_ends_on_its_own_timer) {
    sched.run();
    auto base = sys.registry().running();
    caf::anon_send(keeper, actors::bridge_used{"alice", "u0"});
    caf::anon_send(keeper, actors::bridge_used{"alice", "u1"});
    caf::anon_send(keeper, actors::bridge_used{"bob", "u0"});
    sched.run();
    EXPECT_EQ(sys.registry().running(), base + 3); // one per (session, upstream)
    sched.advance_time(2min);
    sched.run();
    caf::anon_send(keeper, actors::bridge_used{"bob", "u0"});
    sched.run();
    sched.advance_time(3min); // alice's two are idle for 5 minutes; bob's for 3
    sched.run();
    EXPECT_EQ(retired,
              (std::vector<gate::actors::retired_bridge>{{"alice", "u0"}, {"alice", "u1"}}));
    EXPECT_EQ(sys.registry().running(), base + 1);
    sched.advance_time(2min);
    sched.run();
    EXPECT_EQ(retired.size(), 3u);
    EXPECT_EQ(sys.registry().running(), base);
}

TEST_F(keeper_fixture, a_client_listening_before_its_bridge_existed_keeps_it_open) {
    caf::anon_send(keeper, actors::bridge_batch{{actors::bridge_listening{"alice", true}}});
    caf::anon_send(keeper, actors::bridge_used{"alice", "u0"}); // created while alice listens
    sched.run();
    pass(30min);
    EXPECT_TRUE(retired.empty());
    caf::anon_send(keeper, actors::bridge_batch{{actors::bridge_listening{"alice", false}}});
    sched.run();
    pass(5min);
    EXPECT_EQ(retired, (std::vector<gate::actors::retired_bridge>{{"alice", "u0"}}));
}

TEST_F(keeper_fixture, its_bridged_sessions_stop_with_it) {
    sched.run();
    auto base = sys.registry().running();
    caf::anon_send(keeper, actors::bridge_used{"alice", "u0"});
    caf::anon_send(keeper, actors::bridge_call_started{"bob", "1", "u1", boost::json::value(1)});
    sched.run();
    EXPECT_EQ(sys.registry().running(), base + 2);
    caf::anon_send_exit(keeper, caf::exit_reason::kill);
    sched.run();
    EXPECT_EQ(sys.registry().running(), base - 1); // the keeper and both of its sessions
    EXPECT_TRUE(retired.empty()); // stopped, not retired: the io side keeps what it has
}

TEST_F(keeper_fixture, an_event_on_its_way_keeps_a_session_that_found_itself_idle) {
    caf::anon_send(keeper, actors::bridge_used{"alice", "u0"});
    sched.run();
    // The idle check is delivered (not yet run) and alice uses her session again: the
    // keeper forwards that use while the session reports itself idle.
    sched.advance_time(5min);
    caf::anon_send(keeper, actors::bridge_used{"alice", "u0"});
    sched.run();
    EXPECT_TRUE(retired.empty());
    pass(5min);
    EXPECT_EQ(retired, (std::vector<gate::actors::retired_bridge>{{"alice", "u0"}}));
}
