#include "protocol/json_check.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using gate::protocol::is_json;

namespace {

bool boost_parses(std::string_view text) {
    boost::system::error_code ec;
    boost::json::parse(text, ec);
    return !ec;
}

// Each case is checked against Boost.JSON too: the check must accept exactly what the
// parser gate falls back to accepts, or an answer passed as JSON would fail to parse later.
void expect_verdict(std::string_view text, bool want) {
    EXPECT_EQ(boost_parses(text), want) << "boost disagrees with the case: " << text;
    EXPECT_EQ(is_json(text), want) << text;
}

} // namespace

TEST(json_check, accepts_what_json_allows) {
    for (std::string_view text : {"{}",
                                  "[]",
                                  "0",
                                  "-0",
                                  "1E+2",
                                  "1e400",
                                  "-1e-400",
                                  "123456789012345678901234567890",
                                  "true",
                                  "false",
                                  "null",
                                  " \t\n\r{\"a\" : [1, 2.5, -3e2, {\"b\":null}] } \n",
                                  R"("\"\\\/\b\f\n\r\t\u00e9")",
                                  R"("\uD800\uDC00")",
                                  R"("\udbff\udfff")",
                                  "\"\x7f\"",
                                  "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"",
                                  R"({"a":1,"a":2})",
                                  "1e2147483647",
                                  "1.5e-2147483647",
                                  "0.000001e2147483647",
                                  "1e999999999",
                                  "1e0000000000000000000000000001",
                                  "-2.5E-308"})
        expect_verdict(text, true);
}

TEST(json_check, refuses_what_json_does_not) {
    for (std::string_view text : {"",
                                  " ",
                                  "{",
                                  "}",
                                  "[1,]",
                                  R"({"a":1,})",
                                  "[,1]",
                                  "{,}",
                                  R"({"a"})",
                                  R"({"a":})",
                                  R"({a:1})",
                                  "1 2",
                                  "01",
                                  "-",
                                  "1.",
                                  ".5",
                                  "1e",
                                  "1e+",
                                  "+1",
                                  "nul",
                                  "tru",
                                  "True",
                                  "NaN",
                                  "Infinity",
                                  R"("\x")",
                                  R"("\u12")",
                                  R"("\uD800")",
                                  R"("\uD800x")",
                                  R"("\uDC00")",
                                  R"("\uD800\u0041")",
                                  "\"\x01\"",
                                  "\"\xed\xa0\x80\"",
                                  "\"\xf4\x90\x80\x80\"",
                                  "\"\xc0\x80\"",
                                  "\"\xe0\x80\x80\"",
                                  "\"\xf0\x80\x80\x80\"",
                                  "\"\xc3\"",
                                  "\"\xff\"",
                                  "\xef\xbb\xbf{}",
                                  "\"abc",
                                  "/* c */ 1",
                                  "[1] // c",
                                  "1e2147483648",
                                  "1e-99999999999",
                                  "9444444444444444444444e444444444444444444444444444"})
        expect_verdict(text, false);
    expect_verdict(std::string_view("\"a\0b\"", 5), false);
    expect_verdict(std::string_view("[1]\0", 4), false);
}

TEST(json_check, nesting_is_bounded_as_boost_bounds_it) {
    for (int depth : {1, gate::protocol::json_max_depth, gate::protocol::json_max_depth + 1}) {
        std::string arrays = std::string(depth, '[') + std::string(depth, ']');
        std::string objects;
        for (int i = 0; i < depth; ++i)
            objects += R"({"k":)";
        objects += "1" + std::string(depth, '}');
        bool want = depth <= gate::protocol::json_max_depth;
        expect_verdict(arrays, want);
        expect_verdict(objects, want);
    }
}

TEST(json_check, long_strings_are_checked_past_every_sixteen_byte_block) {
    // A character that is wrong at every offset of a long string is found wherever it is,
    // and every kind of byte the fast path stops at is handled at every offset.
    std::string base(100, 'x');
    for (std::size_t at = 0; at < base.size(); ++at) {
        for (std::string_view bad : {"\x01", "\"x", "\\q", "\xc3", "\xed\xa0\x80"}) {
            auto text = "\"" + base.substr(0, at) + std::string(bad) + base.substr(at) + "\"";
            expect_verdict(text, false);
        }
        for (std::string_view good : {"\\n", "\\\"", "\\\\", "\xc3\xa9", "\\u20ac", "\x7f"}) {
            auto text = "\"" + base.substr(0, at) + std::string(good) + base.substr(at) + "\"";
            expect_verdict(text, true);
        }
    }
}

TEST(json_check, indexes_the_top_level_members_as_the_scan_does) {
    using gate::protocol::object_members;
    for (std::string_view text :
         {R"({"jsonrpc":"2.0","id":7,"result":{"id":1,"content":[{"t":"a\"b"}]}})",
          R"( { "id" : [1, {"id": 2}] , "x" : "\\" } )", R"({})", R"({"id":1,"id":2})",
          R"({"\u0069d":1,"id":2})", R"([{"id":1}])", R"("id")", R"({"a":{"b":{"c":{}}}})"}) {
        object_members checked;
        ASSERT_TRUE(is_json(text, &checked)) << text;
        object_members scanned(text);
        for (std::string_view key : {"id", "jsonrpc", "result", "x", "a", "b"}) {
            gate::protocol::text_span a{}, b{};
            auto la = checked.find(text, key, a);
            auto lb = scanned.find(text, key, b);
            EXPECT_EQ(la, lb) << text << " " << key;
            if (la == object_members::lookup::found && lb == la) {
                EXPECT_EQ(a.begin, b.begin) << text << " " << key;
                EXPECT_EQ(a.end, b.end) << text << " " << key;
            }
        }
    }
}
