#include "actors/guards/endpoint_rotation.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

using namespace std::chrono_literals;
using order = std::vector<std::size_t>;
const actors::endpoint_rotation::time_point t0{std::chrono::hours(1)};

TEST(endpoint_rotation, new_sessions_go_round_robin) {
    actors::endpoint_rotation r(3, 1000ms, false);
    EXPECT_EQ(r.next(t0).order, (order{0, 1, 2}));
    EXPECT_EQ(r.next(t0).order, (order{1, 2, 0}));
    EXPECT_EQ(r.next(t0).order, (order{2, 0, 1}));
    EXPECT_EQ(r.next(t0).order, (order{0, 1, 2}));
}

TEST(endpoint_rotation, an_ejected_endpoint_rests_then_returns_passively) {
    actors::endpoint_rotation r(2, 1000ms, false);
    EXPECT_TRUE(r.eject(0, t0));
    EXPECT_FALSE(r.eject(0, t0 + 1ms)); // logged once
    EXPECT_FALSE(r.in_rotation(0, t0 + 500ms));
    EXPECT_EQ(r.next(t0 + 500ms).order, (order{1, 0})); // last resort only
    EXPECT_EQ(r.next(t0 + 600ms).order, (order{1, 0}));
    EXPECT_TRUE(r.in_rotation(0, t0 + 1001ms));
    auto back = r.next(t0 + 1001ms);
    EXPECT_EQ(back.restored, (order{0}));
    EXPECT_EQ(back.order, (order{0, 1}));
    EXPECT_EQ(r.next(t0 + 1002ms).order, (order{1, 0}));
}

TEST(endpoint_rotation, with_active_health_only_a_probe_restores) {
    actors::endpoint_rotation r(2, 1000ms, true);
    r.eject(1, t0);
    EXPECT_FALSE(r.in_rotation(1, t0 + 1h));
    EXPECT_TRUE(r.next(t0 + 1h).restored.empty());
    EXPECT_TRUE(r.restore(1));
    EXPECT_FALSE(r.restore(1));
    EXPECT_TRUE(r.in_rotation(1, t0 + 1h));
}

TEST(endpoint_rotation, all_ejected_still_offers_every_endpoint) {
    actors::endpoint_rotation r(2, 1000ms, false);
    r.eject(0, t0);
    r.eject(1, t0);
    EXPECT_EQ(r.next(t0).order.size(), 2u);
}

} // namespace
} // namespace gate
