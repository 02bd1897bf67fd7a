#include "transport/keeper_batch.hpp"

#include <gtest/gtest.h>

using namespace gate;
using gate::transport::keeper_batch;

namespace {

template <class T> const T& as(const bridge_event& e) {
    return std::get<T>(e);
}

bridge_call_started started(std::string session, std::string id, std::string upstream = "a") {
    return {std::move(session), std::move(id), std::move(upstream), boost::json::value(7)};
}

} // namespace

TEST(keeper_batch, a_call_that_starts_and_ends_in_one_batch_is_its_sessions_use) {
    keeper_batch b;
    b.add(started("s1", "1"));
    b.add(bridge_call_ended{"s1", "1"});
    auto events = b.take();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(as<bridge_used>(events[0]).session, "s1");
    EXPECT_EQ(as<bridge_used>(events[0]).upstream, "a");
    EXPECT_TRUE(b.empty());
    EXPECT_TRUE(b.take().empty());
}

TEST(keeper_batch, many_calls_of_one_session_are_one_use_per_upstream) {
    keeper_batch b;
    for (int i = 0; i < 50; ++i) {
        b.add(started("s1", std::to_string(i), i % 2 ? "a" : "b"));
        b.add(bridge_call_ended{"s1", std::to_string(i)});
    }
    b.add(bridge_used{"s1", "a"});
    auto events = b.take();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(as<bridge_used>(events[0]).upstream, "b");
    EXPECT_EQ(as<bridge_used>(events[1]).upstream, "a");
}

TEST(keeper_batch, a_call_still_open_at_the_flush_reaches_the_keeper_whole) {
    keeper_batch b;
    b.add(started("s1", "1"));
    auto first = b.take();
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(as<bridge_call_started>(first[0]).client_id, "1");
    EXPECT_EQ(as<bridge_call_started>(first[0]).upstream_id, boost::json::value(7));
    b.add(bridge_call_ended{"s1", "1"}); // the keeper holds its start: the end must follow
    auto second = b.take();
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(as<bridge_call_ended>(second[0]).client_id, "1");
}

TEST(keeper_batch, calls_of_different_sessions_and_ids_are_not_confused) {
    keeper_batch b;
    b.add(started("s1", "1"));
    b.add(started("s2", "1"));
    b.add(bridge_call_ended{"s2", "1"});
    b.add(bridge_call_ended{"s1", "2"}); // never started here
    auto events = b.take();
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(as<bridge_call_started>(events[0]).session, "s1"); // still open
    EXPECT_EQ(as<bridge_used>(events[1]).session, "s2");
    EXPECT_EQ(as<bridge_call_ended>(events[2]).client_id, "2");
}

TEST(keeper_batch, nothing_is_folded_across_a_session_ending) {
    keeper_batch b;
    b.add(bridge_used{"s1", "a"});
    b.add(started("s1", "1"));
    b.add(bridge_session_ended{"s1"});
    b.add(bridge_call_ended{"s1", "1"});
    b.add(bridge_used{"s1", "a"});
    auto events = b.take();
    ASSERT_EQ(events.size(), 5u);
    EXPECT_TRUE(std::holds_alternative<bridge_used>(events[0]));
    EXPECT_TRUE(std::holds_alternative<bridge_call_started>(events[1]));
    EXPECT_TRUE(std::holds_alternative<bridge_session_ended>(events[2]));
    EXPECT_TRUE(std::holds_alternative<bridge_call_ended>(events[3]));
    EXPECT_TRUE(std::holds_alternative<bridge_used>(events[4]));
}
