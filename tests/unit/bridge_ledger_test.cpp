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
    l.touch("s1", 0, t0);
    l.touch("s2", 0, t0);
    l.touch("s2", 0, t0 + 4min);
    EXPECT_TRUE(l.expire_idle(t0 + 4min + 59s, 5min).empty());
    EXPECT_EQ(l.expire_idle(t0 + 5min, 5min), (std::vector<retired_bridge>{{"s1", 0}}));
    EXPECT_EQ(l.bridges(), 1u);
    EXPECT_EQ(l.expire_idle(t0 + 9min, 5min), (std::vector<retired_bridge>{{"s2", 0}}));
    EXPECT_EQ(l.bridges(), 0u);
}

TEST(bridge_ledger, a_call_in_flight_keeps_its_bridge_however_long_it_runs) {
    bridge_ledger l;
    l.call_started("s", "1", 2, 17, t0);
    EXPECT_TRUE(l.expire_idle(t0 + 1h, 5min).empty());
    l.call_ended("s", "1", t0 + 1h);
    EXPECT_TRUE(l.expire_idle(t0 + 1h + 4min, 5min).empty()); // idle counts from the end
    EXPECT_EQ(l.expire_idle(t0 + 1h + 5min, 5min).size(), 1u);
}

TEST(bridge_ledger, a_cancellation_finds_the_upstream_request_of_that_session_only) {
    bridge_ledger l;
    l.call_started("s", "\"a\"", 1, 40, t0);
    l.call_started("other", "\"a\"", 0, 41, t0);
    auto target = l.cancel_target("s", "\"a\"");
    ASSERT_TRUE(target);
    EXPECT_EQ(target->upstream, 1u);
    EXPECT_EQ(target->upstream_id, boost::json::value(40));
    EXPECT_FALSE(l.cancel_target("s", "\"b\""));
    l.call_ended("s", "\"a\"", t0);
    EXPECT_FALSE(l.cancel_target("s", "\"a\"")); // the call is over: nothing to cancel
    EXPECT_EQ(l.calls_in_flight(), 1u);
}

TEST(bridge_ledger, an_answer_goes_back_once_and_only_from_the_asked_session) {
    bridge_ledger l;
    l.server_request_opened("s", "gate-1", 3, boost::json::value("up-7"));
    EXPECT_FALSE(l.take_server_request("intruder", "gate-1"));
    auto target = l.take_server_request("s", "gate-1");
    ASSERT_TRUE(target);
    EXPECT_EQ(target->upstream, 3u);
    EXPECT_EQ(target->upstream_id, boost::json::value("up-7"));
    EXPECT_FALSE(l.take_server_request("s", "gate-1"));
}

TEST(bridge_ledger, updates_reach_exactly_the_subscribers) {
    bridge_ledger l;
    l.subscribe("alice", 0, "demo://x");
    l.subscribe("bob", 0, "demo://x");
    l.subscribe("carol", 1, "demo://x"); // the same URI at another upstream
    l.subscribe("dave", 0, "demo://y");
    EXPECT_EQ(l.subscribers(0, "demo://x", std::nullopt),
              (std::vector<std::string>{"alice", "bob"}));
    // An update on alice's own bridged session is alice's alone.
    EXPECT_EQ(l.subscribers(0, "demo://x", std::string("alice")),
              std::vector<std::string>{"alice"});
    EXPECT_TRUE(l.subscribers(0, "demo://x", std::string("dave")).empty());
    l.unsubscribe("alice", 0, "demo://x");
    EXPECT_EQ(l.subscribers(0, "demo://x", std::nullopt), std::vector<std::string>{"bob"});
    EXPECT_TRUE(l.subscribers(2, "demo://x", std::nullopt).empty());
}

TEST(bridge_ledger, an_ended_session_leaves_nothing_behind) {
    bridge_ledger l;
    l.touch("s", 0, t0);
    l.call_started("s", "1", 1, 5, t0);
    l.server_request_opened("s", "gate-9", 1, 3);
    l.subscribe("s", 0, "demo://x");
    l.touch("keep", 0, t0);
    auto gone = l.end_session("s");
    EXPECT_EQ(gone, (std::vector<retired_bridge>{{"s", 0}, {"s", 1}}));
    EXPECT_EQ(l.bridges(), 1u);
    EXPECT_EQ(l.calls_in_flight(), 0u);
    EXPECT_EQ(l.server_requests_pending(), 0u);
    EXPECT_TRUE(l.subscribers(0, "demo://x", std::nullopt).empty());
    EXPECT_TRUE(l.end_session("s").empty());
}

TEST(bridge_ledger, a_retired_bridge_forgets_the_requests_it_carried) {
    bridge_ledger l;
    l.touch("s", 0, t0);
    l.server_request_opened("s", "gate-1", 0, 1);
    l.expire_idle(t0 + 5min, 5min);
    EXPECT_FALSE(l.take_server_request("s", "gate-1"));
}

TEST(bridge_ledger, a_retried_call_is_cancelled_under_its_newest_upstream_id) {
    bridge_ledger l;
    l.call_started("s", "1", 0, 10, t0);
    l.call_started("s", "1", 0, 11, t0); // the same call, sent again (re-initialized session)
    EXPECT_EQ(l.cancel_target("s", "1")->upstream_id, boost::json::value(11));
    EXPECT_EQ(l.calls_in_flight(), 1u);
    l.call_ended("s", "1", t0);
    EXPECT_EQ(l.expire_idle(t0 + 5min, 5min).size(), 1u); // counted once, released once
}
