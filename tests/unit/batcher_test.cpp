#include "actors/sinks/batcher.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

using namespace std::chrono_literals;
using result = actors::batcher::result;
using transition = actors::batcher::transition;
const actors::batcher::clock::time_point t0{std::chrono::hours(1)};

actors::batcher::limits small() {
    actors::batcher::limits l;
    l.buffer = 5;
    l.batch = 2;
    l.linger = 200ms;
    l.first_backoff = 500ms;
    l.max_backoff = 2s;
    return l;
}

TEST(batcher, a_partial_batch_waits_for_company_until_the_linger_ends) {
    actors::batcher b("p", small());
    ASSERT_TRUE(b.add(R"({"n":1})", t0));
    EXPECT_FALSE(b.take(t0 + 199ms));
    EXPECT_EQ(b.next_due(), t0 + 200ms);
    auto batch = b.take(t0 + 200ms);
    ASSERT_TRUE(batch);
    EXPECT_EQ(batch->body, R"([{"n":1}])");
    EXPECT_EQ(batch->events, 1u);
    EXPECT_EQ(batch->id, "p-1");
}

TEST(batcher, a_full_batch_leaves_at_once_and_one_is_in_flight_at_a_time) {
    actors::batcher b("p", small());
    for (int i = 1; i <= 3; ++i)
        ASSERT_TRUE(b.add("{\"n\":" + std::to_string(i) + "}", t0));
    auto first = b.take(t0);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->body, R"([{"n":1},{"n":2}])");
    EXPECT_FALSE(b.take(t0 + 1s)); // in flight: order is kept
    EXPECT_FALSE(b.next_due());
    EXPECT_EQ(b.settle(result::delivered, t0 + 1s), transition::none);
    auto second = b.take(t0 + 1s); // the third waited past its linger meanwhile
    ASSERT_TRUE(second);
    EXPECT_EQ(second->body, R"([{"n":3}])");
    EXPECT_EQ(second->id, "p-2");
    b.settle(result::delivered, t0 + 1s);
    EXPECT_TRUE(b.idle());
    EXPECT_EQ(b.delivered(), 3);
}

TEST(batcher, a_failed_batch_is_resent_unchanged_after_a_doubling_capped_backoff) {
    actors::batcher b("p", small());
    b.add("{}", t0);
    auto sent = b.take(t0 + 200ms);
    ASSERT_TRUE(sent);
    auto now = t0 + 200ms;
    EXPECT_EQ(b.settle(result::failed, now), transition::outage_began);
    for (auto wait : {500ms, 1000ms, 2000ms, 2000ms}) {
        b.add("{\"later\":true}", now); // arrives meanwhile: not part of the resent batch
        EXPECT_EQ(b.next_due(), now + wait);
        EXPECT_FALSE(b.take(now + wait - 1ms));
        auto again = b.take(now + wait);
        ASSERT_TRUE(again);
        EXPECT_EQ(again->id, sent->id);
        EXPECT_EQ(again->body, sent->body);
        now += wait;
        EXPECT_EQ(b.settle(result::failed, now), transition::none); // said once per outage
    }
    EXPECT_EQ(b.failures(), 5);
    ASSERT_TRUE(b.take(now + 2s));
    EXPECT_EQ(b.settle(result::delivered, now + 2s), transition::recovered);
    EXPECT_EQ(b.delivered(), 1);
    auto next = b.take(now + 2s); // backoff reset: the waiting ones go at once (linger passed)
    ASSERT_TRUE(next);
    EXPECT_EQ(next->attempt, 1);
}

TEST(batcher, a_refused_batch_is_dropped_and_the_next_one_goes) {
    actors::batcher b("p", small());
    b.add("{\"bad\":1}", t0);
    b.add("{\"bad\":2}", t0);
    b.add("{\"good\":3}", t0);
    ASSERT_TRUE(b.take(t0));
    EXPECT_EQ(b.settle(result::refused, t0), transition::refused);
    EXPECT_EQ(b.dropped(), 2);
    auto next = b.take(t0 + 200ms);
    ASSERT_TRUE(next);
    EXPECT_EQ(next->body, R"([{"good":3}])");
}

TEST(batcher, a_full_buffer_drops_new_events_and_counts_them) {
    actors::batcher b("p", small());
    for (int i = 0; i < 5; ++i)
        ASSERT_TRUE(b.add("{}", t0));
    EXPECT_FALSE(b.add("{}", t0));
    EXPECT_EQ(b.dropped(), 1);
    ASSERT_TRUE(b.take(t0)); // in flight still occupies the buffer until it settles
    EXPECT_FALSE(b.add("{}", t0));
    b.settle(result::delivered, t0);
    EXPECT_TRUE(b.add("{}", t0));
    EXPECT_EQ(b.waiting(), 4u);
}

TEST(batcher, closing_sends_partial_batches_without_lingering) {
    actors::batcher b("p", small());
    b.add("{}", t0);
    EXPECT_FALSE(b.take(t0));
    b.close();
    EXPECT_TRUE(b.take(t0));
}

} // namespace
} // namespace gate
