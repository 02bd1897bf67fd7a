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
    // The CR ends the blank line at once; the LF after it is its CRLF's, not another line.
    auto evs = p.feed("\n\r");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].data, "x");
    EXPECT_TRUE(p.feed("\ndata: y\r\r").size() == 1);
}

TEST(sse, an_event_past_its_bound_ends_the_stream_and_keeps_what_came_before) {
    sse_parser p(16);
    auto evs = p.feed("data: short\n\ndata: 0123456789");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].data, "short");
    EXPECT_FALSE(p.over_bound());
    EXPECT_TRUE(p.feed("abcdef").empty()); // the line never ends: 22 bytes held, over 16
    EXPECT_TRUE(p.over_bound());
    EXPECT_TRUE(p.feed("\n\ndata: late\n\n").empty()); // nothing more is read
}

TEST(sse, the_bound_counts_an_events_data_lines_together) {
    sse_parser p(16);
    EXPECT_TRUE(p.feed("data: 12345\ndata: 12345\n").empty()); // 12 bytes of data
    EXPECT_FALSE(p.over_bound());
    EXPECT_TRUE(p.feed("data: 12345\n").empty());
    EXPECT_TRUE(p.over_bound());
    // Comments and ended events hold nothing: a long stream of small events is no event.
    sse_parser q(16);
    for (int i = 0; i < 100; ++i)
        EXPECT_EQ(q.feed(": keep-alive\ndata: 0123456789\n\n").size(), 1u);
    EXPECT_FALSE(q.over_bound());
}

// Each byte is looked at once: an endless line fed a byte at a time (as a slow peer sends it)
// is read in one pass. Rescanning the unfinished line on every read, as gate once did, makes
// these 4 MiB cost 8 * 10^12 steps: the test would never end (ctest's timeout fails it).
TEST(sse, an_endless_line_fed_a_byte_at_a_time_is_read_once) {
    sse_parser p;
    EXPECT_TRUE(p.feed("data: ").empty());
    const std::size_t n = 4u << 20;
    for (std::size_t i = 0; i < n; ++i)
        if (!p.feed("x").empty())
            FAIL() << "an event before the line ended, at byte " << i;
    EXPECT_EQ(p.held(), n + 6) << "the unfinished line, whole";
    EXPECT_FALSE(p.over_bound());
    auto evs = p.feed("\n\n");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].data.size(), n);
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
