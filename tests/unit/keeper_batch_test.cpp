#include "gateway/mcp/keeper_batch.hpp"

#include <gtest/gtest.h>
#include <memory>

using namespace gate;
using gate::gateway::keeper_batch;

namespace {

template <class T> const T& as(const gate::actors::bridge_event& e) {
    return std::get<T>(e);
}

// The strings a running call names: its request's, which outlive it.
struct call_names {
    std::string session, client_id, upstream;
};

} // namespace

TEST(keeper_batch, a_call_that_starts_and_ends_in_one_batch_is_its_sessions_use) {
    keeper_batch b;
    call_names n{"s1", "1", "a"};
    keeper_batch::open_call c;
    b.started(c, n.session, n.client_id, n.upstream, 7);
    EXPECT_TRUE(c.running());
    EXPECT_FALSE(b.empty());
    b.ended(c);
    EXPECT_FALSE(c.running());
    auto events = b.take();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(as<gate::actors::bridge_used>(events[0]).session, "s1");
    EXPECT_EQ(as<gate::actors::bridge_used>(events[0]).upstream, "a");
    EXPECT_TRUE(b.empty());
    EXPECT_TRUE(b.take().empty());
}

TEST(keeper_batch, many_calls_of_one_session_are_one_use_per_upstream) {
    keeper_batch b;
    std::string session = "s1", a = "a", other = "b";
    for (int i = 0; i < 50; ++i) {
        auto id = std::to_string(i);
        keeper_batch::open_call c;
        b.started(c, session, id, i % 2 ? a : other, i);
        b.ended(c);
    }
    b.add(actors::bridge_used{"s1", "a"});
    auto events = b.take();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(as<gate::actors::bridge_used>(events[0]).upstream, "b");
    EXPECT_EQ(as<gate::actors::bridge_used>(events[1]).upstream, "a");
}

TEST(keeper_batch, a_call_still_open_at_the_flush_reaches_the_keeper_whole) {
    keeper_batch b;
    call_names n{"s1", "1", "a"};
    keeper_batch::open_call c;
    b.started(c, n.session, n.client_id, n.upstream, 7);
    auto first = b.take();
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(as<gate::actors::bridge_call_started>(first[0]).client_id, "1");
    EXPECT_EQ(as<gate::actors::bridge_call_started>(first[0]).upstream, "a");
    EXPECT_EQ(as<gate::actors::bridge_call_started>(first[0]).upstream_id, boost::json::value(7));
    EXPECT_TRUE(b.empty()); // told once
    EXPECT_TRUE(b.take().empty());
    b.ended(c); // the keeper holds its start: the end must follow
    auto second = b.take();
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(as<gate::actors::bridge_call_ended>(second[0]).session, "s1");
    EXPECT_EQ(as<gate::actors::bridge_call_ended>(second[0]).client_id, "1");
}

TEST(keeper_batch, a_call_sent_again_under_a_new_id_is_told_the_new_one) {
    keeper_batch b;
    call_names n{"s1", "1", "a"};
    keeper_batch::open_call c;
    b.started(c, n.session, n.client_id, n.upstream, 7);
    b.started(c, n.session, n.client_id, n.upstream, 8); // before any flush: only the last
    auto first = b.take();
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(as<gate::actors::bridge_call_started>(first[0]).upstream_id, boost::json::value(8));
    b.started(c, n.session, n.client_id, n.upstream, 9); // after: the keeper learns it
    auto second = b.take();
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(as<gate::actors::bridge_call_started>(second[0]).upstream_id, boost::json::value(9));
}

TEST(keeper_batch, calls_of_different_sessions_are_not_confused) {
    keeper_batch b;
    call_names one{"s1", "1", "a"}, two{"s2", "1", "a"};
    keeper_batch::open_call c1, c2;
    b.started(c1, one.session, one.client_id, one.upstream, 1);
    b.started(c2, two.session, two.client_id, two.upstream, 2);
    b.ended(c2);
    auto events = b.take();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(as<gate::actors::bridge_used>(events[0]).session, "s2");
    EXPECT_EQ(as<gate::actors::bridge_call_started>(events[1]).session, "s1"); // still open
    EXPECT_EQ(as<gate::actors::bridge_call_started>(events[1]).upstream_id, boost::json::value(1));
}

TEST(keeper_batch, nothing_is_folded_across_a_session_ending) {
    keeper_batch b;
    call_names n{"s1", "1", "a"};
    b.add(actors::bridge_used{"s1", "a"});
    keeper_batch::open_call c;
    b.started(c, n.session, n.client_id, n.upstream, 7);
    b.add(actors::bridge_session_ended{"s1"});
    b.ended(c);
    b.add(actors::bridge_used{"s1", "a"});
    auto events = b.take();
    ASSERT_EQ(events.size(), 5u);
    EXPECT_TRUE(std::holds_alternative<gate::actors::bridge_used>(events[0]));
    EXPECT_TRUE(
        std::holds_alternative<gate::actors::bridge_call_started>(events[1])); // before the end
    EXPECT_TRUE(std::holds_alternative<gate::actors::bridge_session_ended>(events[2]));
    EXPECT_TRUE(std::holds_alternative<gate::actors::bridge_call_ended>(events[3]));
    EXPECT_TRUE(std::holds_alternative<gate::actors::bridge_used>(events[4]));
}

TEST(keeper_batch, a_call_that_ends_without_a_word_leaves_nothing_behind) {
    keeper_batch b;
    call_names one{"s1", "1", "a"}, two{"s1", "2", "a"}, three{"s1", "3", "a"};
    keeper_batch::open_call c1, c3;
    b.started(c1, one.session, one.client_id, one.upstream, 1);
    {
        keeper_batch::open_call c2; // its frame is destroyed (an exception): unlinked
        b.started(c2, two.session, two.client_id, two.upstream, 2);
    }
    b.started(c3, three.session, three.client_id, three.upstream, 3);
    b.ended(c1);
    auto events = b.take();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(as<gate::actors::bridge_used>(events[0]).session, "s1");
    EXPECT_EQ(as<gate::actors::bridge_call_started>(events[1]).client_id, "3");
    b.ended(c3);
    EXPECT_EQ(as<gate::actors::bridge_call_ended>(b.take().at(0)).client_id, "3");
    EXPECT_TRUE(b.empty());
}

TEST(keeper_batch, a_call_that_outlives_the_batch_finds_it_gone) {
    auto b = std::make_unique<keeper_batch>();
    call_names n{"s1", "1", "a"};
    keeper_batch::open_call c;
    b->started(c, n.session, n.client_id, n.upstream, 7);
    b.reset(); // at shutdown the gateway may go before a call's frame
    EXPECT_FALSE(c.running());
}
