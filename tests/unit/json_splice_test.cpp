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

TEST(json_splice, set_member_replaces_or_adds_keeping_every_other_byte) {
    std::string_view doc = R"({"id":1,"result":{ "content" : [1.50], "n":1e400 }})";
    auto replaced = set_member(doc, {"result"}, "n", "2");
    ASSERT_TRUE(replaced);
    EXPECT_EQ(*replaced, R"({"id":1,"result":{ "content" : [1.50], "n":2 }})");
    auto added = set_member(doc, {"result"}, "resultType", R"("complete")");
    ASSERT_TRUE(added);
    EXPECT_EQ(*added,
              R"({"id":1,"result":{ "content" : [1.50], "n":1e400 ,"resultType":"complete"}})");
    EXPECT_EQ(*set_member("{ }", {}, "a", "1"), R"({ "a":1})");
    EXPECT_EQ(*set_member(R"({"a":{}})", {"a"}, "b\"c", "[]"), R"({"a":{"b\"c":[]}})");
    EXPECT_EQ(*set_member(R"({"a":0})", {}, "b", "1"), R"({"a":0,"b":1})");
}

TEST(json_splice, set_member_refuses_what_it_cannot_place_once) {
    // Written twice, or once spelled with escapes: a new member would stand beside the old.
    EXPECT_FALSE(set_member(R"({"k":1,"k":2})", {}, "k", "3"));
    auto escaped = set_member(R"({"\u006b":1})", {}, "k", "3");
    ASSERT_TRUE(escaped);
    EXPECT_EQ(*escaped, R"({"\u006b":3})");
    EXPECT_FALSE(set_member(R"({"a":[1]})", {"a"}, "k", "3")); // not an object
    EXPECT_FALSE(set_member(R"({"a":{}})", {"b"}, "k", "3"));  // no such object
    EXPECT_FALSE(set_member(R"([1])", {}, "k", "3"));
}

TEST(json_splice, find_member_follows_a_path) {
    std::string_view doc = R"({"a":{"b":{"c":[1, 2]}},"d":"x"})";
    auto span = find_member(doc, {"a", "b", "c"});
    ASSERT_TRUE(span);
    EXPECT_EQ(doc.substr(span->begin, span->end - span->begin), "[1, 2]");
    EXPECT_FALSE(find_member(doc, {"a", "x"}));
    EXPECT_FALSE(find_member(doc, {"d", "x"}));
    EXPECT_FALSE(find_member(R"({"a":1,"a":2})", {"a"}));
    EXPECT_TRUE(key_reads_as(R"(\u0061)", "a"));
    EXPECT_FALSE(key_reads_as(R"(\u0061)", "b"));
}

TEST(json_splice, may_name_sees_a_key_or_a_value_however_it_is_spelled) {
    EXPECT_TRUE(may_name(R"({"result":{"inputRequests":{}}})", "inputRequests"));
    EXPECT_TRUE(may_name(R"({"resultType":"task"})", "task"));
    // A letter written as an escape: the client's parser reads the key, so it may be there.
    EXPECT_TRUE(may_name(R"({"result":{"\u0069nputRequests":{}}})", "inputRequests"));
    // Named only inside a longer string or key, or not at all.
    EXPECT_FALSE(may_name(R"({"taskId":"x","text":"a task"})", "task"));
    EXPECT_FALSE(may_name(R"({"content":[{"type":"text","text":"done"}]})", "icons"));
    EXPECT_FALSE(may_name(R"(task)", "task"));
    EXPECT_FALSE(may_name(R"({"a":"\\u0069nputRequests"})", "inputRequests")); // `\\` then u
    EXPECT_TRUE(may_name(R"({"a":"x\n","\u0074ask":1})", "task"));
    EXPECT_TRUE(may_name(R"("task")", "task"));
    // An escape that spells no letter (`<` as some writers spell it) names no key.
    EXPECT_FALSE(may_name(R"({"text":"\u003cb\u003e"})", "task"));
    EXPECT_TRUE(may_name(R"({"\u0054ASK":1})", "task")); // a letter: walked, then compared
    EXPECT_FALSE(may_name(R"({"a":"x\u00)", "task"));    // cut short
    EXPECT_FALSE(may_name("", "task"));
}

TEST(json_splice, find_spelled_member_stops_where_the_value_begins) {
    std::string_view doc =
        R"({"jsonrpc":"2.0","id":"\"params\":1","method":"params","params" : {"a":1.50}})";
    auto at = find_spelled_member(doc, "params");
    ASSERT_TRUE(at);
    EXPECT_EQ(doc.substr(*at), R"({"a":1.50}})");
    EXPECT_FALSE(find_spelled_member(doc, "result"));
    EXPECT_FALSE(find_spelled_member(R"({"params")", "params"));
    EXPECT_FALSE(find_spelled_member(R"("params)", "params"));
    // A guess, by design: a nested member of the name first is taken, escapes are not read.
    EXPECT_EQ(*find_spelled_member(R"({"x":{"params":1},"params":2})", "params"), 15u);
    EXPECT_FALSE(find_spelled_member(R"({"p\u0061rams":2})", "params"));
    // Past the 16-byte blocks, and at their seams.
    for (std::size_t pad = 0; pad < 40; ++pad) {
        auto text =
            "{\"" + std::string(pad, 'x') + "\":0,\"params\":[" + std::to_string(pad) + "]}";
        auto found = find_spelled_member(text, "params");
        ASSERT_TRUE(found) << text;
        EXPECT_EQ(text.substr(*found), "[" + std::to_string(pad) + "]}");
    }
}

TEST(json_splice, element_texts_are_the_array_as_written) {
    std::string_view doc = R"({"result":{"tools":[ {"n":1.50} , "x\"]" ,[1e400],{}]}})";
    auto items = element_texts(doc, {"result", "tools"});
    ASSERT_TRUE(items);
    EXPECT_EQ(*items,
              (std::vector<std::string_view>{R"({"n":1.50})", R"("x\"]")", "[1e400]", "{}"}));
    EXPECT_EQ(element_texts("[]", {})->size(), 0u);
    EXPECT_EQ(element_texts(" [0.0] ", {})->at(0), "0.0");
    EXPECT_FALSE(element_texts(doc, {"result"}));               // an object
    EXPECT_FALSE(element_texts(doc, {"missing"}));              // absent
    EXPECT_FALSE(element_texts(R"({"a":[1],"a":[2]})", {"a"})); // twice
}
