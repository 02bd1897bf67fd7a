#include "transport/http/header_writer.hpp"

#include <boost/beast/http.hpp>
#include <gtest/gtest.h>
#include <string>

namespace {

using gate::transport::header_name_valid;
using gate::transport::header_value_valid;
using gate::transport::header_writer;
namespace http = boost::beast::http;

TEST(HeaderWriter, WritesFieldsAsLines) {
    std::string wire = "POST / HTTP/1.1\r\n";
    header_writer head(wire);
    EXPECT_TRUE(head.field("Mcp-Method", "tools/call"));
    EXPECT_TRUE(head.line("Authorization: Bearer abc"));
    EXPECT_TRUE(head.ok());
    EXPECT_EQ(wire, "POST / HTTP/1.1\r\nMcp-Method: tools/call\r\nAuthorization: Bearer abc\r\n");
}

TEST(HeaderWriter, RefusesEveryControlCharacterButTab) {
    for (int c = 0; c < 0x20; ++c) {
        std::string value = "a";
        value += static_cast<char>(c);
        value += "b";
        EXPECT_EQ(header_value_valid(value), c == '\t') << c;
    }
    EXPECT_FALSE(header_value_valid("a\x7f"));
    EXPECT_TRUE(header_value_valid("caf\xc3\xa9 and obs-text"));
    EXPECT_TRUE(header_value_valid(""));
}

TEST(HeaderWriter, TheSmuggledRequestOfIssue32IsNeverWritten) {
    std::string wire = "POST /mcp HTTP/1.1\r\n";
    header_writer head(wire);
    EXPECT_TRUE(head.field("Host", "up:1"));
    EXPECT_FALSE(head.field("Mcp-Method", "x/y\r\nX-Injected: 1\r\nContent-Length: 0\r\n\r\n"
                                          "DELETE /admin/everything HTTP/1.1\r\nHost: internal"));
    EXPECT_TRUE(head.field("Accept", "application/json"));
    EXPECT_FALSE(head.ok());
    EXPECT_EQ(head.refused(), "Mcp-Method"); // the first refused, by name only
    EXPECT_EQ(wire, "POST /mcp HTTP/1.1\r\nHost: up:1\r\nAccept: application/json\r\n");
}

TEST(HeaderWriter, NamesAreTokens) {
    EXPECT_TRUE(header_name_valid("X-Custom_1.a~"));
    EXPECT_FALSE(header_name_valid(""));
    EXPECT_FALSE(header_name_valid("Bad Name"));
    EXPECT_FALSE(header_name_valid("Bad:Name"));
    EXPECT_FALSE(header_name_valid("X\r\nY"));
    std::string wire;
    header_writer head(wire);
    EXPECT_FALSE(head.field_named("X\r\nInjected", "v"));
    EXPECT_EQ(head.refused(), "(an invalid name)"); // a hostile name is not echoed
    EXPECT_TRUE(wire.empty());
}

TEST(HeaderWriter, ValuesAreCheckedWhereverTheControlCharacterFalls) {
    // Blocks of 16 and the bytes after them: a control character at every position of
    // values from 1 to 40 bytes.
    for (std::size_t size = 1; size <= 40; ++size)
        for (std::size_t at = 0; at < size; ++at)
            for (char bad : {'\r', '\n', '\0', '\x7f', '\x1f'}) {
                std::string value(size, 'a');
                value[at] = bad;
                EXPECT_FALSE(header_value_valid(value)) << size << " " << at;
                value[at] = '\t';
                EXPECT_TRUE(header_value_valid(value)) << size << " " << at;
                value[at] = '\x80';
                EXPECT_TRUE(header_value_valid(value)) << size << " " << at;
            }
}

TEST(HeaderWriter, ALineNeedsANameAndASafeValue) {
    std::string wire;
    header_writer head(wire);
    EXPECT_FALSE(head.line("no colon at all"));
    EXPECT_FALSE(head.line("Authorization: Bearer a\nb"));
    EXPECT_TRUE(wire.empty());
}

TEST(HeaderWriter, BeastFieldsGoThroughTheSameCheck) {
    http::request<http::empty_body> req;
    EXPECT_TRUE(gate::transport::set_header(req, http::field::authorization, "Bearer t"));
    EXPECT_FALSE(gate::transport::set_header(req, http::field::host, "evil\r\nX: 1"));
    EXPECT_FALSE(gate::transport::set_header(req, std::string("X Y"), "v"));
    EXPECT_FALSE(gate::transport::set_header(req, std::string("X-Y"), std::string("a\0b", 3)));
    EXPECT_EQ(req[http::field::authorization], "Bearer t");
    EXPECT_EQ(req.count(http::field::host), 0u);
    EXPECT_EQ(std::distance(req.begin(), req.end()), 1);
}

} // namespace
