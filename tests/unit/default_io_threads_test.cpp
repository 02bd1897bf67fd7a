// How many io threads gate runs without --io-threads (gateway/program/default_io_threads):
// one per core of its affinity, fewer under a cgroup CPU quota, within 1 and the bound.
#include "gateway/program/default_io_threads.hpp"

#include <gtest/gtest.h>

using gate::gateway::program::default_io_threads;
using gate::gateway::program::io_threads_for;

TEST(default_io_threads, one_per_core_it_may_run_on) {
    EXPECT_EQ(io_threads_for(16, "", 256), 16u);
    EXPECT_EQ(io_threads_for(16, "max 100000\n", 256), 16u) << "no quota";
    EXPECT_EQ(io_threads_for(1, "", 256), 1u);
    EXPECT_EQ(io_threads_for(0, "", 256), 1u) << "an affinity that could not be read";
    EXPECT_EQ(io_threads_for(512, "", 256), 256u) << "the bound --io-threads has";
}

TEST(default_io_threads, a_cgroup_quota_gives_fewer_rounded_up) {
    EXPECT_EQ(io_threads_for(16, "200000 100000\n", 256), 2u) << "docker --cpus 2";
    EXPECT_EQ(io_threads_for(16, "150000 100000", 256), 2u) << "1.5 cores";
    EXPECT_EQ(io_threads_for(16, "50000 100000", 256), 1u) << "half a core";
    EXPECT_EQ(io_threads_for(4, "800000 100000", 256), 4u) << "more quota than cores";
}

TEST(default_io_threads, text_that_is_not_cpu_max_is_no_quota) {
    for (const char* text : {"garbage", "0 100000", "100000 0", "-1 100000", "100000", " 100000",
                             "1e5 100000", "100000 100000 7", "99999999999999999999999 1"})
        EXPECT_EQ(io_threads_for(8, text, 256), 8u) << text;
}

TEST(default_io_threads, this_process_gets_at_least_one) {
    auto n = default_io_threads(256);
    EXPECT_GE(n, 1u);
    EXPECT_LE(n, 256u);
}
