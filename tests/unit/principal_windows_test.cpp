// Per-principal windows: separate, and bounded without ever adding allowance to a busy one.
#include "actors/guards/principal_windows.hpp"

#include <gtest/gtest.h>

using namespace gate;
using namespace std::chrono_literals;

namespace {
const gate::actors::principal_windows::time_point t0{};
}

TEST(PrincipalWindows, EachPrincipalIsLimitedAlone) {
    gate::actors::principal_windows w(3);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(w.take_batch("alice", t0).taken, 1);
    EXPECT_EQ(w.take_batch("alice", t0).taken, 0);
    EXPECT_EQ(w.take_batch("bob", t0).taken, 1);
    EXPECT_EQ(w.take_batch("alice", t0 + 60s).taken, 1); // the window slid
}

TEST(PrincipalWindows, IdleWindowsGoFirstWhenRoomIsNeeded) {
    gate::actors::principal_windows w(1, 2);
    EXPECT_EQ(w.take_batch("alice", t0).taken, 1);
    EXPECT_EQ(w.take_batch("bob", t0 + 30s).taken, 1);
    // At the bound: alice's window counted nothing in the last minute at t0+61s, bob's did.
    EXPECT_EQ(w.take_batch("carol", t0 + 61s).taken, 1);
    EXPECT_EQ(w.size(), 2u);
    EXPECT_EQ(w.take_batch("bob", t0 + 61s).taken, 0); // bob's full window was kept
}

TEST(PrincipalWindows, AtTheBoundTheLeastRecentlyUsedGoes) {
    gate::actors::principal_windows w(1, 2);
    EXPECT_EQ(w.take_batch("alice", t0).taken, 1);
    EXPECT_EQ(w.take_batch("bob", t0 + 1s).taken, 1);
    EXPECT_EQ(w.take_batch("carol", t0 + 2s).taken, 1); // both busy: alice, the oldest, goes
    EXPECT_EQ(w.size(), 2u);
    EXPECT_EQ(w.take_batch("bob", t0 + 3s).taken, 0);
}
