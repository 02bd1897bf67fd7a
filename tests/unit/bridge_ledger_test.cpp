// The bookkeeping of bridged sessions, with time passed in.
#include "actors/bridge_ledger.hpp"

#include <gtest/gtest.h>

using namespace gate;
using namespace std::chrono_literals;

namespace {
const bridge_ledger::time_point t0{std::chrono::hours(1000)};
}

TEST(bridge_ledger, an_idle_bridge_expires_and_a_used_one_does_not) {
    bridge_ledger l;
    l.touch("s1", "u0", t0);
    l.touch("s2", "u0", t0);
    l.touch("s2", "u0", t0 + 4min);
    EXPECT_TRUE(l.expire_idle(t0 + 4min + 59s, 5min).empty());
    EXPECT_EQ(l.expire_idle(t0 + 5min, 5min), (std::vector<retired_bridge>{{"s1", "u0"}}));
    EXPECT_EQ(l.bridges(), 1u);
    EXPECT_EQ(l.expire_idle(t0 + 9min, 5min), (std::vector<retired_bridge>{{"s2", "u0"}}));
    EXPECT_EQ(l.bridges(), 0u);
}

TEST(bridge_ledger, a_call_in_flight_keeps_its_bridge_however_long_it_runs) {
    bridge_ledger l;
    l.call_started("s", "1", "u2", 17, t0);
    EXPECT_TRUE(l.expire_idle(t0 + 1h, 5min).empty());
    l.call_ended("s", "1", t0 + 1h);
    EXPECT_TRUE(l.expire_idle(t0 + 1h + 4min, 5min).empty()); // idle counts from the end
    EXPECT_EQ(l.expire_idle(t0 + 1h + 5min, 5min).size(), 1u);
}

TEST(bridge_ledger, a_cancellation_finds_the_upstream_request_of_that_session_only) {
    bridge_ledger l;
    l.call_started("s", "\"a\"", "u1", 40, t0);
    l.call_started("other", "\"a\"", "u0", 41, t0);
    auto target = l.cancel_target("s", "\"a\"");
    ASSERT_TRUE(target);
    EXPECT_EQ(target->upstream, "u1");
    EXPECT_EQ(target->upstream_id, boost::json::value(40));
    EXPECT_FALSE(l.cancel_target("s", "\"b\""));
    l.call_ended("s", "\"a\"", t0);
    EXPECT_FALSE(l.cancel_target("s", "\"a\"")); // the call is over: nothing to cancel
    EXPECT_EQ(l.calls_in_flight(), 1u);
}

TEST(bridge_ledger, updates_reach_exactly_the_subscribers) {
    bridge_ledger l;
    l.subscribe("alice", "u0", "demo://x");
    l.subscribe("bob", "u0", "demo://x");
    l.subscribe("carol", "u1", "demo://x"); // the same URI at another upstream
    l.subscribe("dave", "u0", "demo://y");
    EXPECT_EQ(l.subscribers("u0", "demo://x", std::nullopt),
              (std::vector<std::string>{"alice", "bob"}));
    // An update on alice's own bridged session is alice's alone.
    EXPECT_EQ(l.subscribers("u0", "demo://x", std::string("alice")),
              std::vector<std::string>{"alice"});
    EXPECT_TRUE(l.subscribers("u0", "demo://x", std::string("dave")).empty());
    l.unsubscribe("alice", "u0", "demo://x");
    EXPECT_EQ(l.subscribers("u0", "demo://x", std::nullopt), std::vector<std::string>{"bob"});
    EXPECT_TRUE(l.subscribers("u2", "demo://x", std::nullopt).empty());
}

TEST(bridge_ledger, an_ended_session_leaves_nothing_behind) {
    bridge_ledger l;
    l.touch("s", "u0", t0);
    l.call_started("s", "1", "u1", 5, t0);
    l.subscribe("s", "u0", "demo://x");
    l.touch("keep", "u0", t0);
    auto gone = l.end_session("s");
    EXPECT_EQ(gone, (std::vector<retired_bridge>{{"s", "u0"}, {"s", "u1"}}));
    EXPECT_EQ(l.bridges(), 1u);
    EXPECT_EQ(l.calls_in_flight(), 0u);
    EXPECT_TRUE(l.subscribers("u0", "demo://x", std::nullopt).empty());
    EXPECT_TRUE(l.end_session("s").empty());
}

TEST(bridge_ledger, a_retried_call_is_cancelled_under_its_newest_upstream_id) {
    bridge_ledger l;
    l.call_started("s", "1", "u0", 10, t0);
    l.call_started("s", "1", "u0", 11, t0); // the same call, sent again (re-initialized session)
    EXPECT_EQ(l.cancel_target("s", "1")->upstream_id, boost::json::value(11));
    EXPECT_EQ(l.calls_in_flight(), 1u);
    l.call_ended("s", "1", t0);
    EXPECT_EQ(l.expire_idle(t0 + 5min, 5min).size(), 1u); // counted once, released once
}

TEST(bridge_ledger, a_subscription_keeps_its_bridge_until_it_is_dropped) {
    bridge_ledger l;
    l.touch("s", "u0", t0);
    l.touch("s", "u1", t0);
    l.subscribe("s", "u0", "demo://x");
    // Updates arrive on the subscribed session: retiring it would silence them.
    EXPECT_EQ(l.expire_idle(t0 + 1h, 5min), (std::vector<retired_bridge>{{"s", "u1"}}));
    l.unsubscribe("s", "u0", "demo://x");
    l.unsubscribe("s", "u0", "demo://x"); // twice: counted once
    EXPECT_EQ(l.expire_idle(t0 + 1h, 5min), (std::vector<retired_bridge>{{"s", "u0"}}));
}

TEST(bridge_ledger, a_listening_client_keeps_its_bridges_and_idles_from_when_it_stopped) {
    bridge_ledger l;
    l.touch("s", "u0", t0);
    l.listening("s", true, t0);
    l.listening("s", true, t0); // a second stream
    EXPECT_TRUE(l.expire_idle(t0 + 1h, 5min).empty());
    l.listening("s", false, t0 + 1h);
    EXPECT_TRUE(l.expire_idle(t0 + 2h, 5min).empty()); // one stream is still open
    l.listening("s", false, t0 + 2h);
    EXPECT_TRUE(l.expire_idle(t0 + 2h + 4min, 5min).empty());
    EXPECT_EQ(l.expire_idle(t0 + 2h + 5min, 5min).size(), 1u);
    l.listening("s", false, t0 + 3h); // more closes than opens: ignored
    EXPECT_EQ(l.bridges(), 0u);
}

TEST(bridge_ledger, a_retired_upstream_is_forgotten_whatever_its_position_was) {
    bridge_ledger l;
    l.call_started("s", "1", "old", 5, t0);
    l.subscribe("s", "old", "demo://x");
    l.touch("s", "kept", t0);
    l.forget_upstream("old");
    EXPECT_FALSE(l.cancel_target("s", "1"));
    EXPECT_TRUE(l.subscribers("old", "demo://x", std::nullopt).empty());
    EXPECT_EQ(l.end_session("s"), (std::vector<retired_bridge>{{"s", "kept"}}));
}
