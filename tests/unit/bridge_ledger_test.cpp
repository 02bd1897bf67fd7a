// The bridge keeper's index over bridged sessions: where a client's call went, and who
// subscribed to what.
#include "actors/bridging/bridge_ledger.hpp"

#include <gtest/gtest.h>

using namespace gate;

TEST(bridge_ledger, a_call_is_routed_to_its_session_and_upstream_only) {
    gate::actors::bridge_ledger l;
    EXPECT_TRUE(l.call_started("s", "\"a\"", "u1"));
    EXPECT_TRUE(l.call_started("other", "\"a\"", "u0"));
    EXPECT_EQ(l.call_upstream("s", "\"a\""), "u1");
    EXPECT_FALSE(l.call_upstream("s", "\"b\""));
    EXPECT_TRUE(l.call_started("s", "\"a\"", "u1"));  // a retry at the same upstream
    EXPECT_FALSE(l.call_started("s", "\"a\"", "u0")); // the id is in flight elsewhere
    EXPECT_EQ(l.call_ended("s", "\"a\""), "u1");
    EXPECT_FALSE(l.call_upstream("s", "\"a\"")); // the call is over: nothing to cancel
    EXPECT_FALSE(l.call_ended("s", "\"a\""));
    EXPECT_EQ(l.calls_in_flight(), 1u);
}

TEST(bridge_ledger, updates_reach_exactly_the_subscribers) {
    gate::actors::bridge_ledger l;
    EXPECT_TRUE(l.subscribe("alice", "u0", "demo://x"));
    EXPECT_FALSE(l.subscribe("alice", "u0", "demo://x")); // twice: counted once
    l.subscribe("bob", "u0", "demo://x");
    l.subscribe("carol", "u1", "demo://x"); // the same URI at another upstream
    l.subscribe("dave", "u0", "demo://y");
    EXPECT_EQ(l.subscribers("u0", "demo://x", std::nullopt),
              (std::vector<std::string>{"alice", "bob"}));
    // An update on alice's own bridged session is alice's alone.
    EXPECT_EQ(l.subscribers("u0", "demo://x", std::string("alice")),
              std::vector<std::string>{"alice"});
    EXPECT_TRUE(l.subscribers("u0", "demo://x", std::string("dave")).empty());
    EXPECT_TRUE(l.unsubscribe("alice", "u0", "demo://x"));
    EXPECT_FALSE(l.unsubscribe("alice", "u0", "demo://x"));
    EXPECT_EQ(l.subscribers("u0", "demo://x", std::nullopt), std::vector<std::string>{"bob"});
    EXPECT_TRUE(l.subscribers("u2", "demo://x", std::nullopt).empty());
}

TEST(bridge_ledger, an_ended_session_leaves_nothing_behind) {
    gate::actors::bridge_ledger l;
    l.call_started("s", "1", "u1");
    l.subscribe("s", "u0", "demo://x");
    l.call_started("keep", "1", "u1");
    l.end_session("s");
    EXPECT_EQ(l.calls_in_flight(), 1u);
    EXPECT_TRUE(l.subscribers("u0", "demo://x", std::nullopt).empty());
}

TEST(bridge_ledger, a_retired_upstream_takes_its_calls_and_subscriptions) {
    gate::actors::bridge_ledger l;
    l.call_started("s", "1", "u1");
    l.call_started("s", "2", "u0");
    l.subscribe("s", "u1", "demo://x");
    l.forget_upstream("u1");
    EXPECT_FALSE(l.call_upstream("s", "1"));
    EXPECT_EQ(l.call_upstream("s", "2"), "u0");
    EXPECT_TRUE(l.subscribers("u1", "demo://x", std::nullopt).empty());
}
