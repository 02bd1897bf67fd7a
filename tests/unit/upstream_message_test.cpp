#include "gateway/upstream/upstream_message.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using gate::gateway::upstream_message;
namespace json = boost::json;

namespace {

upstream_message of(std::string text) {
    return upstream_message::of_text(std::move(text));
}

// Every reading of `text` agrees with the same reading of its parsed object.
void expect_reads_as_parsed(const std::string& text) {
    auto lazy = of(text);
    auto parsed = upstream_message(json::parse(text).as_object(), text);
    for (auto path : std::vector<std::vector<std::string_view>>{{"id"},
                                                                {"jsonrpc"},
                                                                {"result"},
                                                                {"error"},
                                                                {"error", "code"},
                                                                {"result", "task"},
                                                                {"result", "resultType"},
                                                                {"result", "_meta", "usage"},
                                                                {"result", "content"}}) {
        std::optional<json::value> a, b;
        switch (path.size()) {
        case 1:
            a = lazy.value_at({path[0]});
            b = parsed.value_at({path[0]});
            EXPECT_EQ(lazy.has(path[0]), parsed.has(path[0])) << text;
            break;
        case 2:
            a = lazy.value_at({path[0], path[1]});
            b = parsed.value_at({path[0], path[1]});
            break;
        default:
            a = lazy.value_at({path[0], path[1], path[2]});
            b = parsed.value_at({path[0], path[1], path[2]});
        }
        EXPECT_EQ(a, b) << text << " at " << path.back();
    }
    for (std::int64_t id : {1, 7})
        EXPECT_EQ(is_response_to(lazy, id), is_response_to(parsed, id)) << text;
    EXPECT_EQ(lazy.text_with_id(R"("c")"), parsed.text_with_id(R"("c")")) << text;
}

} // namespace

TEST(upstream_message, reads_members_without_parsing_and_agrees_with_the_parsed_object) {
    for (
        const std::string text : {
            R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a\"b"}]}})",
            R"({"result":{"_meta":{"usage":{"inputTokens":3}},"task":{"taskId":"t1"}},"jsonrpc":"2.0","id":7})",
            R"({"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}})",
            R"({"jsonrpc":"2.0","id":7,"error":{"code":1.5,"message":"not an integer code"}})",
            R"({"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1}})",
            R"({"jsonrpc":"1.0","id":7,"result":{}})",
            R"({"jsonrpc":"\u0032.0","id":7,"result":{}})",
            R"({"jsonrpc":"2.0","id":"7","result":{}})",
            R"({"jsonrpc":"2.0","id":-7,"result":{}})",
            R"({"jsonrpc":"2.0","id":7.0,"result":{}})",
            R"({"jsonrpc":"2.0","id":99999999999999999999,"result":{}})",
            R"({"jsonrpc":"2.0","id":7,"id":1,"result":{}})",
            R"({"jsonrpc":"2.0","\u0069d":1,"id":7,"result":{}})",
            R"({"jsonrpc":"2.0","id":7,"result":[1,2]})",
            R"({"jsonrpc":"2.0","id":7,"result":{"resultType":"task","taskId":"t2"}})",
            R"({"jsonrpc":"2.0","id":7,"result":{"task":1,"task":{"taskId":"x"}}})",
            R"({ "jsonrpc" : "2.0" , "id" : 7 , "result" : { "_meta" : { "usage" : null } } })",
            R"({})",
            // More members than the index holds: read from the parsed object.
            R"({"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"jsonrpc":"2.0","id":7,"result":{}})",
            R"({"jsonrpc":"2.0","id":7,"result":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"task":{"taskId":"t3"}}})",
        })
        expect_reads_as_parsed(text);
}

TEST(upstream_message, the_text_is_read_lazily_and_survives_a_move) {
    std::string big(100000, 'x');
    auto m = of(R"({"jsonrpc":"2.0","result":{"content":[{"type":"text","text":")" + big +
                R"("}],"_meta":{"usage":{"tokens":5}}},"id":41})");
    EXPECT_TRUE(is_response_to(m, 41));
    auto moved = std::move(m); // the member index holds offsets, not pointers
    EXPECT_EQ(*moved.value_at({"result", "_meta", "usage", "tokens"}), 5);
    auto spliced = moved.text_with_id("9");
    ASSERT_TRUE(spliced);
    EXPECT_EQ(json::parse(*spliced).at("id"), 9);
    EXPECT_EQ(json::parse(*spliced).at("result").at("content").at(0).at("text").as_string().size(),
              big.size());
    // Once parsed (and changed), the object answers, not the text.
    moved.body()["id"] = 3;
    EXPECT_EQ(*moved.value_at({"id"}), 3);
    EXPECT_FALSE(is_response_to(moved, 41));
    auto taken = moved.take_body();
    EXPECT_EQ(taken.at("id"), 3);
}
