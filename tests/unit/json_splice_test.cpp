#include "protocol/json_splice.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using namespace gate::protocol;

TEST(json_splice, replaces_the_top_level_id_only) {
    auto in = std::string(
        R"({"result":{"id":7,"items":[{"id":7}],"s":"\"id\":7"},"jsonrpc":"2.0","id":7})");
    auto out = replace_top_level_member(in, "id", R"("client-1")");
    ASSERT_TRUE(out);
    EXPECT_EQ(
        *out,
        R"({"result":{"id":7,"items":[{"id":7}],"s":"\"id\":7"},"jsonrpc":"2.0","id":"client-1"})");
    EXPECT_EQ(boost::json::parse(*out).at("result").at("id"), 7);
}

TEST(json_splice, keeps_every_other_byte_including_spacing_and_number_spelling) {
    auto in = std::string("{ \"id\" : 12 ,\n \"result\" : {\"x\": 1.50, \"y\": 1e3} }");
    auto out = replace_top_level_member(in, "id", "\"a\"");
    EXPECT_EQ(*out, "{ \"id\" : \"a\" ,\n \"result\" : {\"x\": 1.50, \"y\": 1e3} }");
}

TEST(json_splice, finds_values_of_every_type) {
    for (auto [doc, want] : std::vector<std::pair<std::string, std::string>>{
             {R"({"a":[1,{"b":"]"}],"id":null})", "null"},
             {R"({"a":"x\\","id":"q"})", R"("q")"},
             {R"({"id":{"n":[1,2]}})", R"({"n":[1,2]})"},
             {R"({"id":-1.5e2})", "-1.5e2"}}) {
        auto span = find_top_level_member(doc, "id");
        ASSERT_TRUE(span) << doc;
        EXPECT_EQ(doc.substr(span->begin, span->end - span->begin), want) << doc;
    }
}

TEST(json_splice, absent_member_or_non_object) {
    EXPECT_FALSE(find_top_level_member(R"({"result":{"id":1}})", "id"));
    EXPECT_FALSE(find_top_level_member(R"([{"id":1}])", "id"));
    EXPECT_FALSE(find_top_level_member(R"("id")", "id"));
    EXPECT_FALSE(find_top_level_member("{}", "id"));
}

TEST(json_splice, a_member_written_twice_has_no_span) {
    // Parsers keep one of the two: splicing either would leave the other in place.
    std::string_view twice = R"({"id":7,"result":{},"id":8})";
    EXPECT_FALSE(find_top_level_member(twice, "id"));
    EXPECT_FALSE(replace_top_level_member(twice, "id", "1"));
    // Twice below the top level is not the top-level member twice.
    std::string_view nested = R"({"id":7,"result":{"id":8,"x":{"id":9}}})";
    auto span = find_top_level_member(nested, "id");
    ASSERT_TRUE(span);
    EXPECT_EQ(nested.substr(span->begin, span->end - span->begin), "7");
}

TEST(json_splice, strings_ending_in_backslashes_and_escaped_quotes) {
    // The closing quote follows an even run of backslashes; an odd run escapes it.
    for (auto [doc, want] :
         std::vector<std::pair<std::string, std::string>>{{R"({"s":"\\","id":1})", "1"},
                                                          {R"({"s":"\\\\","id":2})", "2"},
                                                          {R"({"s":"\"","id":3})", "3"},
                                                          {R"({"s":"\\\"\\","id":4})", "4"},
                                                          {R"({"s":"a\"id\":9\\","id":5})", "5"},
                                                          {R"({"\\":"\"","id":6})", "6"},
                                                          {R"({"s":"","id":7})", "7"}}) {
        auto span = find_top_level_member(doc, "id");
        ASSERT_TRUE(span) << doc;
        EXPECT_EQ(doc.substr(span->begin, span->end - span->begin), want) << doc;
        EXPECT_TRUE(boost::json::parse(doc).as_object().contains("id")) << doc;
    }
}

TEST(json_splice, a_large_answer_is_spliced_past_its_text) {
    std::string text;
    for (int i = 0; i < 2000; ++i)
        text += R"(line \"quoted\" \\ and a backslash\n)";
    auto doc = R"({"result":{"content":[{"type":"text","text":")" + text +
               R"("}]},"jsonrpc":"2.0","id":41})";
    auto out = replace_top_level_member(doc, "id", R"("c-41")");
    ASSERT_TRUE(out);
    auto v = boost::json::parse(*out).as_object();
    EXPECT_EQ(v.at("id"), "c-41");
    EXPECT_EQ(v, [&] {
        auto expect = boost::json::parse(doc).as_object();
        expect["id"] = "c-41";
        return expect;
    }());
    // Unterminated: no span rather than a read past the end.
    EXPECT_FALSE(find_top_level_member(R"({"id":1,"s":"abc\"})", "id"));
    EXPECT_FALSE(find_top_level_member(R"({"id":"abc)", "id"));
}
