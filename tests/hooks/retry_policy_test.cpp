// The retry schedule: doubling waits with jitter, Retry-After honoured, a cap, and the
// dead-letter queue after the last attempt.
#include "hooks/retry_policy.hpp"

#include <gtest/gtest.h>

using namespace gate::hooks;
using namespace std::chrono_literals;

namespace {
const clock_time t0{std::chrono::hours(500000)};
}

TEST(retry_policy, waits_double_within_the_jitter_band) {
    retry_policy p{8, 1000ms, 60000ms};
    EXPECT_EQ(*next_attempt(p, 1, t0, std::nullopt, 0.0), t0 + 500ms);
    EXPECT_EQ(*next_attempt(p, 1, t0, std::nullopt, 0.999999), t0 + 999ms);
    EXPECT_EQ(*next_attempt(p, 2, t0, std::nullopt, 0.0), t0 + 1000ms);
    EXPECT_EQ(*next_attempt(p, 3, t0, std::nullopt, 0.0), t0 + 2000ms);
    EXPECT_EQ(*next_attempt(p, 7, t0, std::nullopt, 0.0), t0 + 30000ms); // 64 s capped to 60 s
}

TEST(retry_policy, the_last_attempt_sends_it_to_the_dead_letter_queue) {
    retry_policy p{3, 1000ms, 60000ms};
    EXPECT_TRUE(next_attempt(p, 2, t0, std::nullopt, 0.5));
    EXPECT_FALSE(next_attempt(p, 3, t0, std::nullopt, 0.5));
}

TEST(retry_policy, retry_after_is_honoured_when_longer_up_to_the_cap) {
    retry_policy p{8, 1000ms, 60000ms};
    EXPECT_EQ(*next_attempt(p, 1, t0, 30000ms, 0.0), t0 + 30000ms);
    EXPECT_EQ(*next_attempt(p, 1, t0, 10ms, 0.0), t0 + 500ms); // shorter: the schedule wins
    EXPECT_EQ(*next_attempt(p, 1, t0, 3600000ms, 0.0), t0 + 60000ms);
}

TEST(retry_policy, statuses_are_classified) {
    EXPECT_EQ(classify(200), attempt_outcome::delivered);
    EXPECT_EQ(classify(204), attempt_outcome::delivered);
    EXPECT_EQ(classify(410), attempt_outcome::gone);
    EXPECT_EQ(classify(500), attempt_outcome::retry);
    EXPECT_EQ(classify(429), attempt_outcome::retry);
    EXPECT_EQ(classify(404), attempt_outcome::retry);
    EXPECT_EQ(classify(301), attempt_outcome::retry); // redirects are not followed
}
