#include "actors/guards/circuit_breaker.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

using namespace std::chrono_literals;
using state = actors::circuit_breaker::state;
using admission = actors::circuit_breaker::admission;
const actors::circuit_breaker::time_point t0{std::chrono::hours(1)};

TEST(circuit_breaker, opens_after_threshold_consecutive_failures_only) {
    actors::circuit_breaker b(3, 1000ms);
    EXPECT_EQ(b.admit(t0), admission::call);
    EXPECT_FALSE(b.record(false, false, t0));
    EXPECT_FALSE(b.record(false, false, t0));
    EXPECT_FALSE(b.record(true, false, t0)); // a success resets the count
    EXPECT_FALSE(b.record(false, false, t0));
    EXPECT_FALSE(b.record(false, false, t0));
    EXPECT_EQ(b.current(t0), state::closed);
    EXPECT_TRUE(b.record(false, false, t0 + 5ms));
    EXPECT_EQ(b.current(t0 + 5ms), state::open);
    EXPECT_EQ(b.admit(t0 + 5ms), admission::refused);
    EXPECT_EQ(b.admit(t0 + 1004ms), admission::refused);
}

TEST(circuit_breaker, one_probe_after_the_rest_and_its_outcome_decides) {
    actors::circuit_breaker b(1, 1000ms);
    b.record(false, false, t0);
    EXPECT_EQ(b.current(t0 + 999ms), state::open);
    EXPECT_EQ(b.current(t0 + 1000ms), state::half_open);
    EXPECT_EQ(b.admit(t0 + 1000ms), admission::probe);
    EXPECT_EQ(b.admit(t0 + 1001ms), admission::refused); // one probe at a time
    EXPECT_TRUE(b.record(false, true, t0 + 1500ms));     // the probe failed: open again
    EXPECT_EQ(b.current(t0 + 2499ms), state::open);      // for a whole rest from then
    EXPECT_EQ(b.admit(t0 + 2500ms), admission::probe);
    EXPECT_TRUE(b.record(true, true, t0 + 2600ms));
    EXPECT_EQ(b.current(t0 + 2600ms), state::closed);
    EXPECT_EQ(b.admit(t0 + 2600ms), admission::call);
    EXPECT_EQ(b.consecutive_failures(), 0);
}

TEST(circuit_breaker, an_abandoned_probe_lets_the_next_call_probe) {
    actors::circuit_breaker b(1, 0ms);
    b.record(false, false, t0);
    EXPECT_EQ(b.admit(t0), admission::probe);
    b.abandon_probe();
    EXPECT_EQ(b.current(t0), state::half_open);
    EXPECT_EQ(b.admit(t0), admission::probe);
}

TEST(circuit_breaker, late_outcomes_of_calls_admitted_before_opening_change_nothing) {
    actors::circuit_breaker b(2, 1000ms);
    b.record(false, false, t0);
    b.record(false, false, t0);
    EXPECT_FALSE(b.record(true, false, t0 + 1ms)); // raced the opening
    EXPECT_EQ(b.current(t0 + 1ms), state::open);
    EXPECT_EQ(b.admit(t0 + 1000ms), admission::probe);
    EXPECT_FALSE(b.record(true, false, t0 + 1001ms)); // not the probe
    EXPECT_EQ(b.current(t0 + 1001ms), state::half_open);
}

TEST(circuit_breaker, the_fleet_opens_a_closed_circuit_for_what_is_left_of_its_rest) {
    actors::circuit_breaker b(5, 30000ms);
    EXPECT_TRUE(b.open_for(1200ms, t0));
    EXPECT_EQ(b.current(t0), state::open);
    EXPECT_EQ(b.admit(t0 + 1199ms), admission::refused);
    EXPECT_EQ(b.reopens_at(), t0 + 1200ms);
    // Then it probes like any open circuit, and its own probe decides.
    EXPECT_EQ(b.admit(t0 + 1200ms), admission::probe);
    EXPECT_FALSE(b.open_for(1000ms, t0 + 1200ms)); // only a closed circuit is opened
    b.record(true, true, t0 + 1300ms);
    EXPECT_EQ(b.current(t0 + 1300ms), state::closed);
}

} // namespace
} // namespace gate
