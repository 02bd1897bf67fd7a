#include "actors/guards/sliding_window.hpp"
#include "actors/guards/slot_lease.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

using namespace std::chrono_literals;
const actors::sliding_window::time_point t0{std::chrono::hours(1)}; // a slot boundary

TEST(sliding_window, admits_up_to_the_limit_within_the_window) {
    actors::sliding_window w(3);
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
    actors::sliding_window w(2);
    EXPECT_FALSE(w.take(t0 + 59s));
    EXPECT_FALSE(w.take(t0 + 59s));
    // A fixed window would reset at t0 + 60 s; the sliding one still holds both.
    EXPECT_TRUE(w.take(t0 + 61s));
    EXPECT_TRUE(w.take(t0 + 118s + 999ms));
    EXPECT_FALSE(w.take(t0 + 119s));
}

TEST(sliding_window, the_hint_waits_for_enough_old_requests_to_leave) {
    actors::sliding_window w(4);
    for (auto at : {0s, 1s, 2s, 3s})
        ASSERT_FALSE(w.take(t0 + at));
    EXPECT_EQ(w.take(t0 + 10s), std::chrono::milliseconds(50s));
    EXPECT_FALSE(w.take(t0 + 60s + 500ms)); // the first one left at t0 + 60 s
    EXPECT_EQ(w.take(t0 + 60s + 600ms), std::chrono::milliseconds(400ms));
    EXPECT_FALSE(w.take(t0 + 61s));
}

TEST(sliding_window, a_long_silence_empties_it) {
    actors::sliding_window w(1);
    EXPECT_FALSE(w.take(t0));
    EXPECT_TRUE(w.take(t0 + 1s));
    EXPECT_FALSE(w.take(t0 + 10min));
    EXPECT_EQ(w.in_window(t0 + 10min), 1);
}

TEST(sliding_window, near_the_clocks_epoch_the_hint_is_the_same) {
    // A virtual clock starts at its epoch: the window then looks back before it.
    const std::chrono::steady_clock::time_point epoch{};
    actors::sliding_window w(2);
    ASSERT_FALSE(w.take(epoch));
    ASSERT_FALSE(w.take(epoch + 10s));
    EXPECT_EQ(w.take(epoch + 10s), std::chrono::milliseconds(50s));
}

TEST(sliding_window, a_batch_is_a_sixteenth_of_the_room_within_bounds) {
    actors::sliding_window low(3);
    EXPECT_EQ(low.take_batch(t0).taken, 1);
    actors::sliding_window mid(320);
    EXPECT_EQ(mid.take_batch(t0).taken, 20);
    actors::sliding_window high(1'000'000);
    EXPECT_EQ(high.take_batch(t0).taken, actors::slot_demand::first);
    actors::sliding_window full(1);
    EXPECT_EQ(full.take_batch(t0).taken, 1);
    auto refused = full.take_batch(t0);
    EXPECT_EQ(refused.taken, 0);
    EXPECT_GT(refused.wait, std::chrono::milliseconds(0));
}

TEST(sliding_window, a_batch_covers_the_demand_until_its_slot_ends) {
    actors::sliding_window high(1'000'000'000);
    // 2,000 calls a second with half a second of the slot left: 1,250 and a quarter more, less
    // the quarter: 1,250 expected, and the asking call's own.
    EXPECT_EQ(high.take_batch(t0 + 500ms, {2000, 1'000'000}).taken, 1 + 1250);
    // A batch grows at most to what the demand allows.
    EXPECT_EQ(high.take_batch(t0 + 600ms, {2000, 256}).taken, 256);
    // A slow caller takes a little: 2 calls a second, 0.3 s left.
    EXPECT_EQ(high.take_batch(t0 + 1700ms, {2, 64}).taken, 2);
    // Nothing measured yet: the first batch.
    EXPECT_EQ(high.take_batch(t0 + 1800ms).taken, actors::slot_demand::first);
    // Never more than a sixteenth of the room, whatever the demand.
    actors::sliding_window mid(320);
    EXPECT_EQ(mid.take_batch(t0, {100'000, 1'000'000}).taken, 20);
}

// The io thread's side and the window's together, as the limiter runs them.
struct paced_lease {
    actors::sliding_window window;
    actors::slot_lease lease;
    int asks = 0;
    void call(actors::sliding_window::time_point now) {
        if (lease.take(now))
            return;
        ++asks;
        auto b = window.take_batch(now, lease.demand(now));
        lease.grant(b.taken, b.until, now);
    }
};

TEST(sliding_window, a_busy_lease_asks_about_once_per_window_slot) {
    // 20,000 calls a second for five seconds: a fixed batch of 64 would ask 1,563 times.
    paced_lease p{actors::sliding_window(1'000'000'000), {}};
    auto now = t0 + 300ms;
    for (int i = 0; i < 100'000; ++i, now += 50us)
        p.call(now);
    EXPECT_LE(p.asks, 5 * 8);
    EXPECT_GE(p.asks, 5); // one per slot at least: a batch is never spent in a later slot
}

TEST(sliding_window, a_quiet_lease_counts_about_what_it_spends) {
    // 10 calls a second for a minute: a fixed batch of 64 would count 3,840 in the window.
    paced_lease p{actors::sliding_window(1'000'000), {}};
    auto now = t0;
    for (int i = 0; i < 600; ++i, now += 100ms)
        p.call(now);
    EXPECT_LE(p.window.in_window(now - 1ms), 600 * 3 / 2);
    EXPECT_GE(p.window.in_window(now - 1ms), 600 - 10); // every call counted
}

TEST(sliding_window, a_rising_rate_grows_the_batch_step_by_step) {
    paced_lease p{actors::sliding_window(1'000'000'000), {}};
    auto now = t0;
    for (int i = 0; i < 64; ++i, now += 1us) // a burst of 64 in 64 us
        p.call(now);
    EXPECT_EQ(p.asks, 1);
    p.call(now); // measured as a million a second, but the batch only quadruples
    EXPECT_EQ(p.lease.tokens(now), actors::slot_demand::first * actors::slot_demand::growth - 1);
}

} // namespace
} // namespace gate
