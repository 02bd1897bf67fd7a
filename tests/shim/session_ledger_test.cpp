#include "shim/session_ledger.hpp"

#include <gtest/gtest.h>

using gate::shim::session_ledger;
using namespace std::chrono_literals;

TEST(SessionLedger, TheCeilingCountsSessionsUntilTheirChildIsReaped) {
    session_ledger l(2, 5min);
    auto t0 = session_ledger::clock::time_point{};
    EXPECT_TRUE(l.admit("a", t0));
    EXPECT_TRUE(l.admit("b", t0));
    EXPECT_FALSE(l.admit("c", t0));
    l.closing("a"); // DELETE: the child is still being torn down
    EXPECT_FALSE(l.live("a"));
    EXPECT_EQ(l.live_count(), 1u);
    EXPECT_FALSE(l.admit("c", t0));
    l.released("a"); // reaped
    EXPECT_TRUE(l.admit("c", t0));
}

TEST(SessionLedger, IdleMeansNothingInFlightForTheWholeWindow) {
    session_ledger l(4, 5min);
    auto t0 = session_ledger::clock::time_point{} + 1h;
    l.admit("quiet", t0);
    l.admit("busy", t0);
    l.admit("used", t0);
    l.begin_use("busy", t0 + 1s); // a GET stream held open
    l.begin_use("used", t0 + 4min);
    l.end_use("used", t0 + 4min + 1s);
    EXPECT_TRUE(l.take_idle(t0 + 4min + 59s).empty());
    EXPECT_EQ(l.take_idle(t0 + 5min), std::vector<std::string>{"quiet"});
    EXPECT_TRUE(l.take_idle(t0 + 5min).empty());   // already closing: not taken twice
    EXPECT_TRUE(l.take_idle(t0 + 1h).size() == 1); // "used"; "busy" never idles
    EXPECT_TRUE(l.live("busy"));
    l.end_use("busy", t0 + 2h);
    EXPECT_EQ(l.take_idle(t0 + 2h + 5min), std::vector<std::string>{"busy"});
}
