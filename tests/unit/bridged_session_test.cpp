// One bridged session's bookkeeping, with time passed in: when it may end, and what keeps it.
#include "actors/bridging/bridged_session.hpp"

#include <gtest/gtest.h>

using namespace gate;
using namespace std::chrono_literals;

namespace {
const gate::actors::bridged_session::time_point t0{std::chrono::hours(1000)};
}

TEST(bridged_session, it_may_end_once_idle_for_the_limit_from_its_last_use) {
    gate::actors::bridged_session s;
    s.touch(t0);
    EXPECT_EQ(s.idle_at(5min), t0 + 5min);
    s.touch(t0 + 4min);
    EXPECT_EQ(s.idle_at(5min), t0 + 9min);
    s.touch(t0 + 1min); // a late event does not move it back
    EXPECT_EQ(s.idle_at(5min), t0 + 9min);
}

TEST(bridged_session, a_call_in_flight_keeps_it_however_long_it_runs) {
    gate::actors::bridged_session s;
    s.call_started("7", 70, t0);
    EXPECT_FALSE(s.idle_at(5min));
    EXPECT_EQ(s.upstream_id("7"), boost::json::value(70));
    s.call_started("7", 71, t0); // a retry: cancel the newest request
    EXPECT_EQ(s.upstream_id("7"), boost::json::value(71));
    EXPECT_EQ(s.calls_in_flight(), 1u);
    s.call_ended("7", t0 + 1h);
    EXPECT_FALSE(s.upstream_id("7"));
    EXPECT_EQ(s.idle_at(5min), t0 + 1h + 5min); // idle counts from the end
}

TEST(bridged_session, a_subscription_keeps_it_until_dropped) {
    gate::actors::bridged_session s;
    s.touch(t0);
    s.subscribed(true);
    EXPECT_FALSE(s.idle_at(5min));
    s.subscribed(false);
    s.subscribed(false); // never below zero
    EXPECT_EQ(s.idle_at(5min), t0 + 5min);
}

TEST(bridged_session, a_listening_client_keeps_it_and_idle_counts_from_the_last_stream) {
    gate::actors::bridged_session s;
    s.touch(t0);
    s.listening(true, t0);
    s.listening(true, t0); // a second stream
    s.listening(false, t0 + 1h);
    EXPECT_FALSE(s.idle_at(5min)); // one stream is still open
    s.listening(false, t0 + 2h);
    EXPECT_EQ(s.idle_at(5min), t0 + 2h + 5min);
}
