// The lock file's one format (config/lock_format): what the writer finds lockable reads back
// as written, whatever bytes a tool's name holds, and the reader splits on exactly the
// characters the writer refuses.
#include "config/lock_format.hpp"

#include <gtest/gtest.h>
#include <random>

namespace gate::config {
namespace {

const std::string lock_digest = "sha256:" + std::string(64, 'a');

TEST(LockFormat, EveryWhitespaceTheReaderSplitsOnMakesANameUnlockable) {
    for (char c : std::string(" \t\n\v\f\r")) {
        std::string name = std::string("odd") + c + "name";
        EXPECT_FALSE(lockable_name(name)) << int(c);
        EXPECT_FALSE(lockable({"up", name, lock_digest})) << int(c);
        // A line a writer without this check would write is refused, not misread.
        EXPECT_TRUE(
            std::holds_alternative<std::string>(read_lock_line("up " + name + " " + lock_digest)))
            << int(c);
    }
    EXPECT_FALSE(lockable_name(""));
    EXPECT_FALSE(lockable({"#up", "t", lock_digest}));
    EXPECT_FALSE(lockable({"up", "t", "sha256:short"}));
}

TEST(LockFormat, EverySingleByteNameRoundTrips) {
    for (int b = 0; b < 256; ++b) {
        lock_entry e{"up", std::string(1, static_cast<char>(b)), lock_digest};
        auto back = read_lock_line(lock_line(e));
        if (!lockable(e))
            continue;
        ASSERT_TRUE(std::holds_alternative<lock_entry>(back)) << b;
        EXPECT_EQ(std::get<lock_entry>(back), e) << b;
    }
}

TEST(LockFormat, RandomNamesRoundTripAndAnyLineReadIsWrittenBackAlike) {
    std::mt19937 random(47); // fixed: the same cases every run
    std::uniform_int_distribution<int> byte(0, 255), length(0, 12);
    for (int n = 0; n < 20000; ++n) {
        std::string upstream, tool;
        for (int i = length(random); i > 0; --i)
            upstream.push_back(static_cast<char>(byte(random)));
        for (int i = length(random); i > 0; --i)
            tool.push_back(static_cast<char>(byte(random)));
        lock_entry e{upstream, tool, lock_digest};
        if (lockable(e)) {
            auto back = read_lock_line(lock_line(e));
            ASSERT_TRUE(std::holds_alternative<lock_entry>(back)) << n;
            EXPECT_EQ(std::get<lock_entry>(back), e) << n;
        }
        // Whatever a line holds, an entry read from it is lockable and written back alike.
        auto read = read_lock_line(upstream + "\v" + tool + " \f" + lock_digest + "\r");
        if (auto* got = std::get_if<lock_entry>(&read)) {
            EXPECT_TRUE(lockable(*got));
            EXPECT_EQ(read_lock_line(lock_line(*got)), read);
        }
    }
}

TEST(LockFormat, CommentsBlankLinesAndCrlf) {
    EXPECT_TRUE(std::holds_alternative<lock_comment>(read_lock_line("")));
    EXPECT_TRUE(std::holds_alternative<lock_comment>(read_lock_line(" \t\r")));
    EXPECT_TRUE(std::holds_alternative<lock_comment>(read_lock_line("# up t " + lock_digest)));
    EXPECT_TRUE(std::holds_alternative<lock_comment>(read_lock_line("#up t")));
    auto crlf = read_lock_line("up t " + lock_digest + "\r");
    ASSERT_TRUE(std::holds_alternative<lock_entry>(crlf));
    EXPECT_EQ(std::get<lock_entry>(crlf), (lock_entry{"up", "t", lock_digest}));
    auto two = read_lock_line("up " + lock_digest);
    ASSERT_TRUE(std::holds_alternative<std::string>(two));
    EXPECT_NE(std::get<std::string>(two).find("got 2 fields"), std::string::npos);
}

} // namespace
} // namespace gate::config
