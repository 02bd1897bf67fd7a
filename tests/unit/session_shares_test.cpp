#include "gateway/mcp/session_shares.hpp"

#include <gtest/gtest.h>
#include <set>

using namespace gate::gateway;
using namespace std::chrono_literals;

namespace {

const session_shares::time_point t0{};

// Sessions named "<holder><n>", opened a second apart from `at`.
void open_n(session_shares& s, const std::string& holder, int n, session_shares::time_point at) {
    for (int i = 0; i < n; ++i)
        s.opened(holder + std::to_string(i), holder, at + std::chrono::seconds(i));
}

struct busy_set {
    std::set<std::string> ids;
    session_shares::idle_test test() const {
        return [this](const std::string& id) { return !ids.contains(id); };
    }
};

} // namespace

TEST(session_shares, admits_while_under_the_share_and_the_table) {
    session_shares s;
    busy_set busy;
    open_n(s, "a", 2, t0);
    auto v = s.admit("a", {10, 3}, t0 + 5s, busy.test());
    EXPECT_TRUE(v.admit);
    EXPECT_FALSE(v.evict);
    EXPECT_TRUE(s.admit("b", {10, 3}, t0 + 5s, busy.test()).admit);
    EXPECT_EQ(s.size(), 2u);
    EXPECT_EQ(s.held_by("a"), 2u);
    EXPECT_EQ(s.held_by("b"), 0u);
}

TEST(session_shares, at_its_share_a_caller_gives_up_its_own_least_recently_used_idle_session) {
    session_shares s;
    busy_set busy;
    open_n(s, "a", 3, t0); // a0 at 0 s, a1 at 1 s, a2 at 2 s
    open_n(s, "b", 1, t0);
    s.used("a0", t0 + 10s); // a1 is now the least recently used
    auto v = s.admit("a", {100, 3}, t0 + 61s, busy.test());
    EXPECT_TRUE(v.admit);
    EXPECT_EQ(v.evict, "a1");
    EXPECT_EQ(v.evicted_holder, "a");
    EXPECT_EQ(v.evicted_idle, 60s);
    EXPECT_EQ(v.reason, share_reason::caller_share);
    // One in use (a stream, a call) is passed over for the next.
    busy.ids = {"a1"};
    EXPECT_EQ(s.admit("a", {100, 3}, t0 + 61s, busy.test()).evict, "a2");
}

TEST(session_shares, a_caller_whose_share_is_all_in_use_is_refused_and_nobody_else_pays) {
    session_shares s;
    busy_set busy{{"a0", "a1"}};
    open_n(s, "a", 2, t0);
    open_n(s, "b", 1, t0);
    auto v = s.admit("a", {100, 2}, t0 + 1h, busy.test());
    EXPECT_FALSE(v.admit);
    EXPECT_FALSE(v.evict);
    EXPECT_EQ(v.reason, share_reason::caller_share);
    // Another caller is not held back by it.
    EXPECT_TRUE(s.admit("b", {100, 2}, t0 + 1h, busy.test()).admit);
}

TEST(session_shares, a_full_table_takes_from_whoever_holds_the_most_above_the_fair_share) {
    session_shares s;
    busy_set busy;
    open_n(s, "flood", 6, t0 + 100s); // the most, and the most recently used
    open_n(s, "b", 2, t0);            // older, but within the fair share
    open_n(s, "c", 2, t0);
    // Table 10, three holders and a newcomer: fair share 2. Only "flood" is above it.
    auto v = s.admit("d", {10, 8}, t0 + 200s, busy.test());
    EXPECT_TRUE(v.admit);
    EXPECT_EQ(v.evict, "flood0");
    EXPECT_EQ(v.reason, share_reason::table_full);
    // A holder within the fair share asking gets room from "flood" too, not from its own.
    EXPECT_EQ(s.admit("b", {10, 8}, t0 + 200s, busy.test()).evict, "flood0");
    // "flood" itself, above the fair share (10 / 3 = 3), gives up its own.
    EXPECT_EQ(s.admit("flood", {10, 8}, t0 + 200s, busy.test()).evict, "flood0");
}

TEST(session_shares, among_equal_holders_the_one_idle_longest_gives_first) {
    session_shares s;
    busy_set busy;
    open_n(s, "a", 3, t0 + 10s);
    open_n(s, "b", 3, t0); // b0 is the oldest
    auto v = s.admit("c", {6, 6}, t0 + 20s, busy.test());
    EXPECT_EQ(v.evict, "b0");
    // Every session of "b" used again: now a0 is the oldest, and "a" gives first.
    s.used("b0", t0 + 15s);
    s.used("b1", t0 + 16s);
    s.used("b2", t0 + 17s);
    EXPECT_EQ(s.admit("c", {6, 6}, t0 + 20s, busy.test()).evict, "a0");
}

TEST(session_shares, the_most_over_holder_all_in_use_passes_to_the_next_over_the_fair_share) {
    session_shares s;
    busy_set busy{{"a0", "a1", "a2", "a3", "a4"}};
    open_n(s, "a", 5, t0);
    open_n(s, "b", 4, t0);
    open_n(s, "c", 1, t0);
    // Fair share 10 / 4 = 2: "a" (all in use) and then "b" are above it.
    auto v = s.admit("d", {10, 10}, t0 + 1min, busy.test());
    EXPECT_EQ(v.evict, "b0");
    EXPECT_EQ(v.evicted_holder, "b");
    // With "b" in use too, "c" (within the fair share) keeps its session: refused.
    busy.ids.insert({"b0", "b1", "b2", "b3"});
    auto refused = s.admit("d", {10, 10}, t0 + 1min, busy.test());
    EXPECT_FALSE(refused.admit);
    EXPECT_EQ(refused.reason, share_reason::table_full);
}

TEST(session_shares, within_the_fair_share_a_caller_may_still_give_up_its_own) {
    session_shares s;
    busy_set busy{{"a0", "a1", "a2", "a3", "a4"}};
    open_n(s, "a", 5, t0);
    open_n(s, "b", 5, t0);
    // Fair share 5: nobody is above it. "b" gives up its own idle one rather than be refused.
    auto v = s.admit("b", {10, 10}, t0 + 1min, busy.test());
    EXPECT_EQ(v.evict, "b0");
    EXPECT_EQ(v.reason, share_reason::table_full);
    // A newcomer finds "a" and "b" above its fair share (3); "a" is all in use, "b" is not.
    EXPECT_EQ(s.admit("c", {10, 10}, t0 + 1min, busy.test()).evict, "b0");
}

TEST(session_shares, closing_and_use_keep_the_books) {
    session_shares s;
    busy_set busy;
    open_n(s, "a", 2, t0);
    s.opened("a0", "someone-else", t0); // an id already held is not opened twice
    EXPECT_EQ(s.size(), 2u);
    EXPECT_EQ(s.holders(), 1u);
    s.closed("a0");
    s.closed("a0");
    s.used("gone", t0); // unknown ids change nothing
    EXPECT_EQ(s.held_by("a"), 1u);
    s.closed("a1");
    EXPECT_EQ(s.holders(), 0u);
    EXPECT_EQ(s.size(), 0u);
    open_n(s, "b", 2, t0);
    s.clear();
    EXPECT_EQ(s.size(), 0u);
    EXPECT_TRUE(s.admit("b", {1, 1}, t0, busy.test()).admit);
}

TEST(session_shares, under_lowered_limits_each_new_session_ends_one) {
    session_shares s;
    busy_set busy;
    open_n(s, "a", 5, t0);
    // The share was lowered to 2 (a reload): "a" keeps its five, and each new one costs one.
    auto v = s.admit("a", {10, 2}, t0 + 10s, busy.test());
    EXPECT_TRUE(v.admit);
    EXPECT_EQ(v.evict, "a0");
    EXPECT_EQ(v.reason, share_reason::caller_share);
    // The table lowered below what it holds: a newcomer takes from "a".
    EXPECT_EQ(s.admit("b", {3, 3}, t0 + 10s, busy.test()).evict, "a0");
    EXPECT_EQ(share_reason_label(share_reason::caller_share), "principal_share");
    EXPECT_EQ(share_reason_label(share_reason::table_full), "table_full");
}
