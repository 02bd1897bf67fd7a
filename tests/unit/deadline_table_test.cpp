// The deadline table with time passed in: what fires, in what order, and what a late disarm
// may not touch.
#include "transport/http/deadline_table.hpp"

#include <gtest/gtest.h>
#include <vector>

namespace gate::transport {
namespace {

using namespace std::chrono_literals;
using time_point = deadline_table::time_point;
const time_point t0{};

TEST(deadline_table, fires_what_is_due_in_deadline_order_and_nothing_else) {
    deadline_table t;
    std::vector<int> fired;
    auto a = t.arm(t0 + 30ms, [&] { fired.push_back(30); });
    auto b = t.arm(t0 + 10ms, [&] { fired.push_back(10); });
    auto c = t.arm(t0 + 50ms, [&] { fired.push_back(50); });
    EXPECT_EQ(t.armed(), 3u);
    EXPECT_EQ(t.next(), t0 + 10ms);
    EXPECT_EQ(t.expire(t0 + 9ms), 0u);
    EXPECT_EQ(t.expire(t0 + 30ms), 2u);
    EXPECT_EQ(fired, (std::vector<int>{10, 30}));
    EXPECT_EQ(t.armed(), 1u);
    EXPECT_EQ(t.next(), t0 + 50ms);
    EXPECT_FALSE(t.disarm(a)); // fired already
    EXPECT_FALSE(t.disarm(b));
    EXPECT_TRUE(t.disarm(c));
    EXPECT_EQ(t.expire(t0 + 1s), 0u);
    EXPECT_EQ(t.armed(), 0u);
    EXPECT_FALSE(t.next());
}

TEST(deadline_table, a_disarmed_entry_never_fires) {
    deadline_table t;
    int fired = 0;
    auto h = t.arm(t0 + 1ms, [&] { ++fired; });
    EXPECT_TRUE(t.disarm(h));
    EXPECT_FALSE(t.disarm(h)); // twice: nothing
    EXPECT_EQ(t.expire(t0 + 1s), 0u);
    EXPECT_EQ(fired, 0);
}

TEST(deadline_table, a_stale_handle_does_not_disarm_the_slots_next_tenant) {
    deadline_table t;
    int first = 0, second = 0;
    auto old = t.arm(t0 + 1ms, [&] { ++first; });
    ASSERT_TRUE(t.disarm(old));
    auto reused = t.arm(t0 + 2ms, [&] { ++second; });
    EXPECT_EQ(reused.slot, old.slot); // the slot is reused ...
    EXPECT_FALSE(t.disarm(old));      // ... but not by the old handle
    EXPECT_EQ(t.expire(t0 + 2ms), 1u);
    EXPECT_EQ(first, 0);
    EXPECT_EQ(second, 1);
}

TEST(deadline_table, an_action_may_disarm_a_later_due_entry_and_arm_new_ones) {
    deadline_table t;
    std::vector<int> fired;
    deadline_table::handle later;
    t.arm(t0 + 1ms, [&] {
        fired.push_back(1);
        EXPECT_TRUE(t.disarm(later)); // due in the same pass, disarmed before it fires
        t.arm(t0 + 1ms, [&] { fired.push_back(3); }); // armed during the pass: the next one
    });
    later = t.arm(t0 + 2ms, [&] { fired.push_back(2); });
    EXPECT_EQ(t.expire(t0 + 5ms), 1u);
    EXPECT_EQ(fired, (std::vector<int>{1}));
    EXPECT_EQ(t.expire(t0 + 5ms), 1u);
    EXPECT_EQ(fired, (std::vector<int>{1, 3}));
    EXPECT_EQ(t.armed(), 0u);
}

TEST(deadline_table, slots_are_reused_so_arming_and_disarming_does_not_grow_it) {
    deadline_table t;
    for (int i = 0; i < 1000; ++i) {
        auto h = t.arm(t0 + std::chrono::milliseconds(i), [] {});
        EXPECT_EQ(h.slot, 0u);
        t.disarm(h);
    }
    EXPECT_EQ(t.armed(), 0u);
}

} // namespace
} // namespace gate::transport
