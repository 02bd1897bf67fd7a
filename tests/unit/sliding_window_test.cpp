#include "actors/sliding_window.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

using namespace std::chrono_literals;
const sliding_window::time_point t0{std::chrono::hours(1)}; // a slot boundary

TEST(sliding_window, admits_up_to_the_limit_within_the_window) {
    sliding_window w(3);
    EXPECT_FALSE(w.take(t0));
    EXPECT_FALSE(w.take(t0 + 10s));
    EXPECT_FALSE(w.take(t0 + 20s));
    auto wait = w.take(t0 + 30s);
    ASSERT_TRUE(wait);
    // The first request leaves the window when it is a minute old.
    EXPECT_EQ(*wait, 30s);
    EXPECT_EQ(w.in_window(t0 + 30s), 3);
}

TEST(sliding_window, slides_rather_than_resetting_each_minute) {
    sliding_window w(2);
    EXPECT_FALSE(w.take(t0 + 59s));
    EXPECT_FALSE(w.take(t0 + 59s));
    // A fixed window would reset at t0 + 60 s; the sliding one still holds both.
    EXPECT_TRUE(w.take(t0 + 61s));
    EXPECT_TRUE(w.take(t0 + 118s + 999ms));
    EXPECT_FALSE(w.take(t0 + 119s));
}

TEST(sliding_window, the_hint_waits_for_enough_old_requests_to_leave) {
    sliding_window w(4);
    for (auto at : {0s, 1s, 2s, 3s})
        ASSERT_FALSE(w.take(t0 + at));
    EXPECT_EQ(w.take(t0 + 10s), std::chrono::milliseconds(50s));
    EXPECT_FALSE(w.take(t0 + 60s + 500ms)); // the first one left at t0 + 60 s
    EXPECT_EQ(w.take(t0 + 60s + 600ms), std::chrono::milliseconds(400ms));
    EXPECT_FALSE(w.take(t0 + 61s));
}

TEST(sliding_window, a_long_silence_empties_it) {
    sliding_window w(1);
    EXPECT_FALSE(w.take(t0));
    EXPECT_TRUE(w.take(t0 + 1s));
    EXPECT_FALSE(w.take(t0 + 10min));
    EXPECT_EQ(w.in_window(t0 + 10min), 1);
}

TEST(sliding_window, near_the_clocks_epoch_the_hint_is_the_same) {
    // A virtual clock starts at its epoch: the window then looks back before it.
    const std::chrono::steady_clock::time_point epoch{};
    sliding_window w(2);
    ASSERT_FALSE(w.take(epoch));
    ASSERT_FALSE(w.take(epoch + 10s));
    EXPECT_EQ(w.take(epoch + 10s), std::chrono::milliseconds(50s));
}

TEST(sliding_window, a_batch_is_a_sixteenth_of_the_room_within_bounds) {
    sliding_window low(3);
    EXPECT_EQ(low.take_batch(t0).taken, 1);
    sliding_window mid(320);
    EXPECT_EQ(mid.take_batch(t0).taken, 20);
    sliding_window high(1'000'000);
    EXPECT_EQ(high.take_batch(t0).taken, sliding_window::max_batch);
    sliding_window full(1);
    EXPECT_EQ(full.take_batch(t0).taken, 1);
    auto refused = full.take_batch(t0);
    EXPECT_EQ(refused.taken, 0);
    EXPECT_GT(refused.wait, std::chrono::milliseconds(0));
}

} // namespace
} // namespace gate
