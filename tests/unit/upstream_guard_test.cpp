#include "actors/guards/upstream_guard.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

using namespace std::chrono_literals;
using reason = upstream_guard::refused::reason;
const upstream_guard::time_point t0{std::chrono::hours(1)};

// The refusal, if any (by value: the variant is a temporary).
std::optional<upstream_guard::refused>
refusal(const std::variant<upstream_guard::admitted, upstream_guard::refused>& v) {
    if (auto* r = std::get_if<upstream_guard::refused>(&v))
        return *r;
    return std::nullopt;
}

TEST(upstream_guard, only_invocations_count_against_the_rate_limit) {
    upstream_guard g(5, 1000ms, 2);
    EXPECT_FALSE(refusal(g.admit(guard_use::invocation, t0)));
    EXPECT_FALSE(refusal(g.admit(guard_use::invocation, t0)));
    auto r = refusal(g.admit(guard_use::invocation, t0 + 1s));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->why, reason::rate_limited);
    EXPECT_EQ(r->retry_after, 59s);
    EXPECT_FALSE(refusal(g.admit(guard_use::upkeep, t0 + 1s))); // a health ping still goes
}

TEST(upstream_guard, an_open_circuit_refuses_everything_and_takes_no_window_slot) {
    upstream_guard g(1, 1000ms, 1);
    auto a = std::get<upstream_guard::admitted>(g.admit(guard_use::upkeep, t0));
    EXPECT_TRUE(g.record(false, a, t0));
    for (auto use : {guard_use::invocation, guard_use::upkeep}) {
        auto r = refusal(g.admit(use, t0 + 400ms));
        ASSERT_TRUE(r);
        EXPECT_EQ(r->why, reason::circuit_open);
        EXPECT_EQ(r->retry_after, 600ms);
    }
    // The window's one slot is still free for the probe.
    auto probe = g.admit(guard_use::invocation, t0 + 1s);
    ASSERT_FALSE(refusal(probe));
    EXPECT_TRUE(std::get<upstream_guard::admitted>(probe).probe);
    EXPECT_EQ(refusal(g.admit(guard_use::upkeep, t0 + 1s))->why, reason::circuit_open);
    EXPECT_TRUE(g.record(true, std::get<upstream_guard::admitted>(probe), t0 + 1100ms));
    EXPECT_EQ(g.breaker_state(t0 + 1100ms), circuit_breaker::state::closed);
}

TEST(upstream_guard, a_rate_limited_call_does_not_take_the_probe) {
    upstream_guard g(1, 0ms, 1);
    auto first = std::get<upstream_guard::admitted>(g.admit(guard_use::invocation, t0));
    g.record(false, first, t0);
    EXPECT_EQ(refusal(g.admit(guard_use::invocation, t0))->why, reason::rate_limited);
    auto probe = g.admit(guard_use::upkeep, t0);
    ASSERT_FALSE(refusal(probe));
    EXPECT_TRUE(std::get<upstream_guard::admitted>(probe).probe);
}

} // namespace
} // namespace gate
