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

} // namespace
} // namespace gate
