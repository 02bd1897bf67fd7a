// One upstream's x-mcp-header annotations (gateway/upstream/tool_param_headers): an invalid
// definition leaves the list (its text with it, the rest kept in order), a tool whose schema
// lost its annotations is forgotten, and a call's fields are the tool's own followed by the
// client's headers gate does not write itself.
#include "gateway/upstream/tool_param_headers.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace gate::gateway {
namespace {

namespace json = boost::json;

json::array tool_list(std::string_view text) {
    return json::parse(text).as_array();
}

TEST(tool_param_headers, an_invalid_definition_leaves_the_list_with_its_text) {
    tool_param_headers headers;
    auto list = tool_list(R"([
        {"name":"a","inputSchema":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}},
        {"name":"bad","inputSchema":{"properties":{"r":{"type":"number","x-mcp-header":"R"}}}},
        {"name":"c","inputSchema":{"type":"object"}}])");
    std::vector<std::string> sources{"text-a", "text-bad", "text-c"};
    headers.learn(list, &sources, "up");
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].at("name"), "a");
    EXPECT_EQ(list[1].at("name"), "c");
    EXPECT_EQ(sources, (std::vector<std::string>{"text-a", "text-c"}));
    ASSERT_NE(headers.find("a"), nullptr);
    EXPECT_EQ(headers.find("a")->front().name, "R");
    EXPECT_EQ(headers.find("bad"), nullptr);
    EXPECT_EQ(headers.find("c"), nullptr);
    // The next list says a lost its annotation.
    auto again = tool_list(R"([{"name":"a","inputSchema":{"type":"object"}}])");
    headers.learn(again, nullptr, "up");
    EXPECT_EQ(headers.find("a"), nullptr);
}

TEST(tool_param_headers, a_calls_fields_are_the_tools_then_the_clients_others) {
    tool_param_headers headers;
    auto list = tool_list(
        R"([{"name":"a","inputSchema":{"properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}])");
    headers.learn(list, nullptr, "up");
    auto params = json::parse(R"({"name":"a","arguments":{"r":"eu"}})").as_object();
    protocol::sent_param_headers client{{"region", "eu"}, {"Tenant", "blue"}};
    EXPECT_EQ(headers.fields_for(params, &client),
              (protocol::header_fields{{"Mcp-Param-Region", "eu"}, {"Mcp-Param-Tenant", "blue"}}));
    EXPECT_EQ(headers.fields_for(params, nullptr),
              (protocol::header_fields{{"Mcp-Param-Region", "eu"}}));
    auto unknown = json::parse(R"({"name":"zzz","arguments":{"r":"eu"}})").as_object();
    EXPECT_EQ(headers.fields_for(unknown, &client),
              (protocol::header_fields{{"Mcp-Param-region", "eu"}, {"Mcp-Param-Tenant", "blue"}}));
}

} // namespace
} // namespace gate::gateway
