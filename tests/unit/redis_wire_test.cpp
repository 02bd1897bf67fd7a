// RESP over hiredis: commands as bytes, replies split anywhere in the stream, garbage refused.
#include "transport/redis/redis_wire.hpp"

#include <gtest/gtest.h>

using namespace gate::transport;

TEST(RedisWire, FormatsACommandAsAnArrayOfBulkStrings) {
    EXPECT_EQ(redis_command({"SET", "k", std::string("a\0b", 3)}),
              std::string("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\na\0b\r\n", 29));
}

TEST(RedisWire, ReadsRepliesSplitAnywhere) {
    redis_reply_reader r;
    std::string stream = "+OK\r\n:42\r\n$-1\r\n*2\r\n$3\r\nfoo\r\n-ERR bad\r\n";
    std::vector<redis_value> got;
    for (char c : stream) { // one byte at a time: the worst split there is
        r.feed(std::string_view(&c, 1));
        for (;;) {
            auto n = r.next();
            if (auto* v = std::get_if<redis_value>(&n)) {
                got.push_back(std::move(*v));
                continue;
            }
            ASSERT_FALSE(std::holds_alternative<std::string>(n));
            break;
        }
    }
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0].type, redis_value::kind::status);
    EXPECT_EQ(got[0].text, "OK");
    EXPECT_EQ(got[1].integer, 42);
    EXPECT_EQ(got[2].type, redis_value::kind::nil);
    ASSERT_EQ(got[3].elements.size(), 2u);
    EXPECT_EQ(got[3].elements[0].text, "foo");
    EXPECT_EQ(got[3].elements[1].type, redis_value::kind::error);
    EXPECT_EQ(got[3].elements[1].text, "ERR bad");
}

TEST(RedisWire, AnArrayTooLargeToHoldIsRefusedNotAllocated) {
    redis_reply_reader r;
    r.feed("*2147483647\r\n");
    EXPECT_TRUE(std::holds_alternative<std::string>(r.next()));
    redis_reply_reader nested;
    nested.feed("*1\r\n*3\r\n:1\r\n:2\r\n:3\r\n");
    auto v = nested.next();
    ASSERT_TRUE(std::holds_alternative<redis_value>(v));
    EXPECT_EQ(std::get<redis_value>(v).elements.at(0).elements.at(2).integer, 3);
}

TEST(RedisWire, AStreamThatIsNotRespIsRefused) {
    redis_reply_reader r;
    r.feed("HTTP/1.1 200 OK\r\n");
    EXPECT_TRUE(std::holds_alternative<std::string>(r.next()));
}
