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
