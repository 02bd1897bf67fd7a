#include "protocol/trace_context.hpp"

#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

using namespace gate::protocol;

TEST(trace_context, parses_a_valid_traceparent) {
    auto t = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
    EXPECT_EQ(t->span_id, "00f067aa0ba902b7");
    EXPECT_EQ(t->flags, "01");
}

TEST(trace_context, refuses_malformed_ones) {
    for (auto bad : {"", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
                     "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                     "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                     "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                     "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                     "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g"})
        EXPECT_FALSE(parse_traceparent(bad)) << bad;
}

TEST(trace_context, child_keeps_trace_and_flags_with_a_new_span) {
    auto caller = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
    auto child = child_of(caller);
    EXPECT_EQ(child.trace_id, caller->trace_id);
    EXPECT_EQ(child.flags, "00");
    EXPECT_NE(child.span_id, caller->span_id);
    EXPECT_TRUE(parse_traceparent(child.header()));
}

TEST(trace_context, root_starts_a_sampled_trace) {
    auto a = child_of(std::nullopt), b = child_of(std::nullopt);
    EXPECT_NE(a.trace_id, b.trace_id);
    EXPECT_EQ(a.flags, "01");
    EXPECT_TRUE(parse_traceparent(a.header()));
}

TEST(trace_context, child_header_is_the_header_of_a_child) {
    auto caller = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
    auto continued = parse_traceparent(child_header(caller));
    ASSERT_TRUE(continued);
    EXPECT_EQ(continued->trace_id, caller->trace_id);
    EXPECT_EQ(continued->flags, "00");
    EXPECT_NE(continued->span_id, caller->span_id);
    auto a = parse_traceparent(child_header(std::nullopt));
    auto b = parse_traceparent(child_header(std::nullopt));
    ASSERT_TRUE(a && b);
    EXPECT_NE(a->trace_id, b->trace_id);
    EXPECT_NE(a->span_id, b->span_id);
    EXPECT_EQ(a->flags, "01");
}

// Each digit position of an id takes every one of the 16 lowercase digits and nothing else:
// a digit computed from the wrong nibble, or a letter from the wrong offset, shows here.
TEST(trace_context, random_hex_uses_every_digit_at_every_position) {
    for (std::size_t bytes : {std::size_t{8}, std::size_t{16}, std::size_t{3}}) {
        std::vector<std::set<char>> seen(bytes * 2);
        for (int n = 0; n < 4000; ++n) {
            auto id = random_hex(bytes);
            ASSERT_EQ(id.size(), bytes * 2);
            for (std::size_t i = 0; i < id.size(); ++i)
                seen[i].insert(id[i]);
        }
        for (std::size_t i = 0; i < seen.size(); ++i)
            EXPECT_EQ(std::string(seen[i].begin(), seen[i].end()), "0123456789abcdef")
                << bytes << " bytes, position " << i;
    }
}
