// The upstream's own rate limit, as its actor decides it: invocations take window slots, gate's
// upkeep takes none, a full window refuses with how long until it has room. The breaker's side
// of an admission is the breaker actor's (tests/actors/breaker_actor_test.cpp).
#include "actors/guards/upstream_guard.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

using namespace std::chrono_literals;
using reason = actors::upstream_guard::refused::reason;
const actors::upstream_guard::time_point t0{std::chrono::hours(1)};

// The refusal, if any (by value: the variant is a temporary).
std::optional<actors::upstream_guard::refused>
refusal(const std::variant<actors::upstream_guard::granted, actors::upstream_guard::refused>& v) {
    if (auto* r = std::get_if<actors::upstream_guard::refused>(&v))
        return *r;
    return std::nullopt;
}

TEST(upstream_guard, only_invocations_count_against_the_rate_limit) {
    actors::upstream_guard g(2);
    EXPECT_TRUE(g.limited());
    auto first = g.grant(actors::guard_use::invocation, t0);
    ASSERT_FALSE(refusal(first));
    EXPECT_EQ(std::get<actors::upstream_guard::granted>(first).tokens,
              1); // 2 slots: a batch of one
    EXPECT_FALSE(std::get<actors::upstream_guard::granted>(first).probe);
    EXPECT_FALSE(refusal(g.grant(actors::guard_use::invocation, t0)));
    auto r = refusal(g.grant(actors::guard_use::invocation, t0 + 1s));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->why, reason::rate_limited);
    EXPECT_EQ(r->retry_after, 59s);
    auto upkeep = g.grant(actors::guard_use::upkeep, t0 + 1s); // a health ping still goes
    ASSERT_FALSE(refusal(upkeep));
    EXPECT_EQ(std::get<actors::upstream_guard::granted>(upkeep).tokens, 0);
}

TEST(upstream_guard, without_a_rate_limit_everything_goes_and_takes_no_slot) {
    actors::upstream_guard g(std::nullopt);
    EXPECT_FALSE(g.limited());
    for (int i = 0; i < 1000; ++i) {
        auto a = g.grant(actors::guard_use::invocation, t0);
        ASSERT_FALSE(refusal(a));
        EXPECT_EQ(std::get<actors::upstream_guard::granted>(a).tokens, 0);
    }
}

} // namespace
} // namespace gate
