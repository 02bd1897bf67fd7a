#include "process/log_gate.hpp"

#include <gtest/gtest.h>

using gate::process::log_gate;
using namespace std::chrono_literals;

TEST(log_gate, one_line_per_interval_counting_what_it_left_out) {
    const log_gate::time_point t0{};
    log_gate gate(1s);
    EXPECT_EQ(gate.pass(t0), 0u); // the first always logs
    EXPECT_FALSE(gate.pass(t0 + 1ms));
    EXPECT_FALSE(gate.pass(t0 + 999ms));
    EXPECT_EQ(gate.pass(t0 + 1s), 2u); // and says two were left out
    EXPECT_FALSE(gate.pass(t0 + 1500ms));
    EXPECT_EQ(gate.pass(t0 + 10s), 1u);
    EXPECT_EQ(gate.pass(t0 + 20s), 0u);
}
