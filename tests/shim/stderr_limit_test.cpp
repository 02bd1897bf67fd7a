#include "shim/stderr_limit.hpp"

#include <gtest/gtest.h>

using gate::shim::loggable_line;
using gate::shim::stderr_limit;
using gate::shim::stderr_limits;
using namespace std::chrono_literals;

namespace {

stderr_limits limits() {
    stderr_limits l;
    l.lines_per_second = 10;
    l.burst = 100;
    l.report_every = 10s;
    return l;
}

} // namespace

TEST(StderrLimit, ABurstThenTheSteadyRateAndEveryHeldBackLineIsCounted) {
    auto t0 = stderr_limit::time_point{} + 1h;
    stderr_limit limit(limits(), t0);
    std::uint64_t logged = 0, reported = 0;
    // 10,000 lines at once: the burst is logged, the rest held back.
    for (int i = 0; i < 10'000; ++i) {
        auto v = limit.line(t0);
        logged += v.log;
        reported += v.report;
    }
    EXPECT_EQ(logged, 100u);
    EXPECT_EQ(reported, 1u); // the first held-back line is reported at once, then held back
    // Ten lines every 100 ms for 5 s (10/s allowed): 50 more logged.
    for (int i = 1; i <= 50; ++i)
        for (int j = 0; j < 10; ++j) {
            auto v = limit.line(t0 + i * 100ms);
            logged += v.log;
            reported += v.report;
        }
    EXPECT_EQ(logged, 150u);
    EXPECT_EQ(reported, 1u); // the next report is not due before 10 s
    EXPECT_EQ(limit.due(t0 + 9s), 0u);
    auto due = limit.due(t0 + 10s);
    EXPECT_EQ(due, 10'500u - 150u - 1u);
    reported += due;
    EXPECT_EQ(limit.rest(), 0u);
    EXPECT_EQ(logged + reported, 10'500u); // nothing lost from the count
}

TEST(StderrLimit, TheBucketRefillsToItsBurstAndNoFurther) {
    auto t0 = stderr_limit::time_point{};
    stderr_limit limit(limits(), t0);
    for (int i = 0; i < 100; ++i)
        ASSERT_TRUE(limit.line(t0).log);
    EXPECT_FALSE(limit.line(t0).log);
    EXPECT_TRUE(limit.line(t0 + 100ms).log); // one token back
    EXPECT_FALSE(limit.line(t0 + 100ms).log);
    // An hour of quiet refills to the burst, not to 36,000.
    int logged = 0;
    for (int i = 0; i < 1000; ++i)
        logged += limit.line(t0 + 1h).log;
    EXPECT_EQ(logged, 100);
}

TEST(StderrLimit, WhatIsLeftIsReportedWhenTheChildEnds) {
    auto t0 = stderr_limit::time_point{};
    stderr_limit limit(limits(), t0);
    for (int i = 0; i < 103; ++i)
        limit.line(t0 + 1ms); // 100 logged, 1 reported at once, 2 left
    EXPECT_EQ(limit.rest(), 2u);
    EXPECT_EQ(limit.rest(), 0u);
    EXPECT_EQ(limit.due(t0 + 1h), 0u);
}

TEST(LoggableLine, CutToTheBoundOnACharacterBoundaryWithItsLength) {
    EXPECT_EQ(loggable_line("short", 5, 1024), "short");
    EXPECT_EQ(loggable_line("abcdefgh", 8, 4), "abcd... (8 bytes)");
    // The line as kept may be shorter than the line as written (8 KiB kept of 1 MB).
    EXPECT_EQ(loggable_line("abcd", 1'000'000, 4), "abcd... (1000000 bytes)");
    // "é" is two bytes: a cut at 2 of "aé" would split it, so it goes whole.
    EXPECT_EQ(loggable_line("a\xc3\xa9z", 4, 2), "a... (4 bytes)");
    EXPECT_EQ(loggable_line("a\xc3\xa9z", 4, 3), "a\xc3\xa9... (4 bytes)");
}

TEST(LoggableLine, ControlCharactersCannotForgeOrEraseLogLines) {
    EXPECT_EQ(loggable_line("ok\r[error] forged\x1b[2K", 21, 1024),
              "ok\\x0d[error] forged\\x1b[2K");
    EXPECT_EQ(loggable_line("tab\there", 8, 1024), "tab\\x09here");
    // C1 controls (the 8-bit CSI, U+009B) too; other characters pass as they are.
    EXPECT_EQ(loggable_line("a\xc2\x9b"
                            "2Kb \xc2\xa0 \xc3\xa9",
                            12, 1024),
              "a\\u009b2Kb \xc2\xa0 \xc3\xa9");
    EXPECT_EQ(loggable_line("end\xc2", 4, 1024), "end\xc2");
}
