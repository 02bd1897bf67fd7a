// The queue a stream's messages wait in for their client (transport/http/event_stream): what it
// holds for a client that does not read is bounded, the oldest dropped, never the answer.
#include "transport/http/event_stream.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>
#include <string>

namespace gate::transport {
namespace {

struct queue_of_a_client_that_does_not_read : ::testing::Test {
    boost::asio::io_context io;
    message_queue out{io.get_executor()};
};

TEST_F(queue_of_a_client_that_does_not_read, holds_at_most_256_messages_the_newest) {
    for (int i = 0; i < 300; ++i)
        out.push("m" + std::to_string(i));
    ASSERT_EQ(out.frames.size(), message_queue::max_messages);
    EXPECT_EQ(out.frames.front(), "m44");
    EXPECT_EQ(out.frames.back(), "m299");
    EXPECT_EQ(out.dropped, 44u);
}

TEST_F(queue_of_a_client_that_does_not_read, holds_at_most_4_mib_and_never_drops_the_answer) {
    const std::string mib(1u << 20, 'x');
    for (int i = 0; i < 6; ++i)
        out.push(mib);
    EXPECT_EQ(out.frames.size(), 4u) << "4 MiB of them";
    std::string answer(5u << 20, 'a'); // over the bound alone: it stays, the rest goes
    out.push(answer, true);
    ASSERT_EQ(out.frames.size(), 1u);
    EXPECT_EQ(out.frames.front().size(), answer.size());
    EXPECT_TRUE(out.answered);
    EXPECT_EQ(out.dropped, 6u);
}

TEST_F(queue_of_a_client_that_does_not_read, what_is_taken_is_no_longer_held) {
    const std::string mib(1u << 20, 'x');
    for (int i = 0; i < 4; ++i)
        out.push(mib);
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(out.take().size(), mib.size());
    for (int i = 0; i < 4; ++i)
        out.push(mib);
    EXPECT_EQ(out.frames.size(), 4u);
    EXPECT_EQ(out.dropped, 0u) << "the taken ones count no more";
}

} // namespace
} // namespace gate::transport
