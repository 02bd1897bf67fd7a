#include "actors/supervision/restart_intensity.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

using namespace std::chrono_literals;
const actors::restart_intensity::time_point t0{std::chrono::hours(1)};

std::optional<actors::restart_intensity::restart> restarted(const auto& verdict) {
    if (auto* r = std::get_if<actors::restart_intensity::restart>(&verdict))
        return *r;
    return std::nullopt;
}

TEST(restart_intensity, the_first_restart_is_immediate_and_the_pauses_double) {
    actors::restart_intensity r; // 5 within 60 s, 100 ms doubling
    std::vector<std::chrono::milliseconds> pauses;
    for (int i = 0; i < 5; ++i) {
        auto v = restarted(r.stopped(t0 + i * 1s));
        ASSERT_TRUE(v) << i;
        EXPECT_EQ(v->count, static_cast<std::size_t>(i + 1));
        pauses.push_back(v->pause);
    }
    EXPECT_EQ(pauses, (std::vector<std::chrono::milliseconds>{0ms, 100ms, 200ms, 400ms, 800ms}));
}

TEST(restart_intensity, past_the_intensity_it_gives_up_until_the_window_empties) {
    actors::restart_intensity r;
    for (int i = 0; i < 5; ++i)
        ASSERT_TRUE(restarted(r.stopped(t0 + i * 1s)));
    auto sixth = r.stopped(t0 + 59s);
    ASSERT_TRUE(std::holds_alternative<actors::restart_intensity::give_up>(sixth));
    EXPECT_EQ(std::get<actors::restart_intensity::give_up>(sixth).count, 5u);
    // A refused restart is not counted: once the first restart is 60 s old there is room
    // again, with the pause of the fifth in the window.
    auto later = restarted(r.stopped(t0 + 60s));
    ASSERT_TRUE(later);
    EXPECT_EQ(later->count, 5u);
    EXPECT_EQ(later->pause, 800ms);
}

TEST(restart_intensity, crashes_farther_apart_than_the_window_are_each_restarted_at_once) {
    actors::restart_intensity r;
    for (int i = 0; i < 20; ++i) {
        auto v = restarted(r.stopped(t0 + i * 60s));
        ASSERT_TRUE(v) << i;
        EXPECT_EQ(v->pause, 0ms);
        EXPECT_EQ(v->count, 1u);
    }
}

TEST(restart_intensity, the_pause_stops_growing_at_its_cap) {
    actors::restart_intensity r(
        {.max_restarts = 10, .within = 60s, .first_pause = 1s, .max_pause = 3s});
    std::vector<std::chrono::milliseconds> pauses;
    for (int i = 0; i < 6; ++i)
        pauses.push_back(restarted(r.stopped(t0))->pause);
    EXPECT_EQ(pauses, (std::vector<std::chrono::milliseconds>{0ms, 1s, 2s, 3s, 3s, 3s}));
}

TEST(restart_intensity, a_zero_intensity_never_restarts) {
    actors::restart_intensity r({.max_restarts = 0});
    EXPECT_TRUE(std::holds_alternative<actors::restart_intensity::give_up>(r.stopped(t0)));
}

} // namespace
} // namespace gate
