// The logins gate started and has not finished (gateway/accounts/login_table), with time
// passed in: joined, found by id, their state taken once, expired, bounded.
#include "gateway/accounts/login_table.hpp"

#include <gtest/gtest.h>

using namespace gate::gateway::accounts;
using namespace std::chrono_literals;

namespace {

const auto t0 = steady::time_point(std::chrono::hours(1000));

pending_login login(std::string id, std::string principal = "iss\nalice",
                    std::string upstream = "files") {
    pending_login l;
    l.id = std::move(id);
    l.principal = std::move(principal);
    l.upstream = std::move(upstream);
    return l;
}

} // namespace

TEST(login_table, a_second_call_joins_the_open_login_of_its_principal_and_upstream) {
    login_table t;
    t.open(login("L1"), t0);
    EXPECT_EQ(t.joinable("iss\nalice", "files", t0 + 1min)->id, "L1");
    EXPECT_EQ(t.joinable("iss\nbob", "files", t0), nullptr);
    EXPECT_EQ(t.joinable("iss\nalice", "mail", t0), nullptr);
    EXPECT_EQ(t.joinable("iss\nalice", "files", t0 + login_table::lifetime), nullptr);
}

TEST(login_table, a_state_is_taken_once_and_only_the_latest_arrival_counts) {
    login_table t;
    auto& l = t.open(login("L1"), t0);
    t.arrived(l, "S1", "v1", "b1");
    t.arrived(*t.by_id("L1", t0), "S2", "v2", "b2"); // the browser came again
    EXPECT_FALSE(t.take_by_state("S1", t0).has_value());
    auto taken = t.take_by_state("S2", t0 + 1min);
    ASSERT_TRUE(taken.has_value());
    EXPECT_EQ(taken->verifier, "v2");
    EXPECT_EQ(taken->browser, "b2");
    EXPECT_FALSE(t.take_by_state("S2", t0 + 1min).has_value()); // replayed
    EXPECT_EQ(t.by_id("L1", t0), nullptr);                      // the login is over
}

TEST(login_table, an_expired_login_is_neither_found_nor_finished) {
    login_table t;
    auto& l = t.open(login("L1"), t0);
    t.arrived(l, "S1", "v", "b");
    EXPECT_EQ(t.by_id("L1", t0 + login_table::lifetime), nullptr);
    EXPECT_FALSE(t.take_by_state("S1", t0 + login_table::lifetime).has_value());
    EXPECT_EQ(t.size(), 0u);
}

TEST(login_table, one_principal_holds_at_most_its_share_the_oldest_going_first) {
    login_table t;
    for (std::size_t i = 0; i < login_table::per_principal; ++i)
        t.open(login("A" + std::to_string(i), "iss\nalice", "up" + std::to_string(i)),
               t0 + std::chrono::seconds(i));
    t.open(login("B", "iss\nbob"), t0);
    t.open(login("A-new", "iss\nalice", "more"), t0 + 1min);
    EXPECT_EQ(t.size(), login_table::per_principal + 1);
    EXPECT_EQ(t.by_id("A0", t0 + 1min), nullptr);
    EXPECT_NE(t.by_id("A1", t0 + 1min), nullptr);
    EXPECT_NE(t.by_id("B", t0 + 1min), nullptr);
}
