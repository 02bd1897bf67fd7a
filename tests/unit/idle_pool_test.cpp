#include "transport/client/idle_pool.hpp"

#include <gtest/gtest.h>

namespace gate::transport {
namespace {

using namespace std::chrono_literals;
const idle_pool<int>::time_point t0{std::chrono::hours(1)};

TEST(idle_pool, the_most_recently_returned_connection_goes_first) {
    idle_pool<int> pool(8, 4s);
    pool.give(1, t0);
    pool.give(2, t0 + 1s);
    pool.give(3, t0 + 2s);
    EXPECT_EQ(pool.take(t0 + 3s), 3);
    EXPECT_EQ(pool.take(t0 + 3s), 2);
    EXPECT_EQ(pool.size(), 1u);
}

TEST(idle_pool, a_connection_idle_past_the_bound_is_never_reused) {
    idle_pool<int> pool(8, 4s);
    pool.give(1, t0);
    pool.give(2, t0 + 3s);
    EXPECT_EQ(pool.take(t0 + 4s + 1ms), 2); // 1 is too old and is dropped on the way
    EXPECT_EQ(pool.size(), 0u);
    pool.give(3, t0);
    EXPECT_EQ(pool.take(t0 + 5s), std::nullopt);
}

TEST(idle_pool, it_keeps_at_most_its_capacity_and_clears_at_once) {
    idle_pool<int> pool(2, 4s);
    EXPECT_TRUE(pool.give(1, t0));
    EXPECT_TRUE(pool.give(2, t0));
    EXPECT_TRUE(pool.full());
    EXPECT_FALSE(pool.give(3, t0));
    pool.clear();
    EXPECT_EQ(pool.take(t0), std::nullopt);
}

} // namespace
} // namespace gate::transport
