#include "transport/http/sse.hpp"

#include <gtest/gtest.h>

using namespace gate::transport;

TEST(sse, parses_events_split_across_reads) {
    sse_parser p;
    EXPECT_TRUE(p.feed("event: message\nid: 1\nda").empty());
    auto evs = p.feed("ta: {\"a\":1}\n\n");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].id, "1");
    EXPECT_EQ(evs[0].data, "{\"a\":1}");
}

TEST(sse, joins_multi_line_data_and_skips_comments) {
    sse_parser p;
    auto evs = p.feed(": ping\n\ndata: a\ndata: b\n\n");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].data, "a\nb");
}

TEST(sse, handles_crlf_split_between_reads) {
    sse_parser p;
    EXPECT_TRUE(p.feed("data: x\r").empty());
    EXPECT_TRUE(p.feed("\n\r").empty());
    auto evs = p.feed("\n");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].data, "x");
}

TEST(sse, formats_what_it_parses) {
    sse_parser p;
    auto evs = p.feed(format_sse("line1\nline2", "7"));
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].data, "line1\nline2");
    EXPECT_EQ(evs[0].id, "7");
}

TEST(sse, remembers_the_last_event_id_and_retry_even_of_an_event_without_data) {
    sse_parser p;
    EXPECT_EQ(p.last_event_id(), "");
    EXPECT_FALSE(p.retry());
    // A priming event: an id and a reconnection time, and no message.
    auto events = p.feed("id: event-4\nretry: 500\ndata: \n\n");
    EXPECT_EQ(p.last_event_id(), "event-4");
    ASSERT_TRUE(p.retry());
    EXPECT_EQ(p.retry()->count(), 500);
    p.feed("id: event-5\n\n"); // no data: nothing dispatched, the id kept
    EXPECT_EQ(p.last_event_id(), "event-5");
    p.feed("id: event-6\n"); // an event not ended yet: its id is not the stream's
    EXPECT_EQ(p.last_event_id(), "event-5");
    p.feed("\n");
    EXPECT_EQ(p.last_event_id(), "event-6");
    // A retry that is not all digits, or absurdly long, changes nothing; nor does an id with
    // NUL or one too long to send back.
    p.feed("retry: 1e3\nretry: -5\nretry: 99999999999\n\n");
    EXPECT_EQ(p.retry()->count(), 500);
    p.feed(std::string("id: a\0b\n\n", 10));
    p.feed("id: " + std::string(max_event_id + 1, 'x') + "\n\n");
    EXPECT_EQ(p.last_event_id(), "event-6");
}
