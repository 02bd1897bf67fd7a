// The x-mcp-header annotations gate-stdio learns from the tools/list answers it relays
// (shim/child_tool_headers): a call of a known tool must mirror its arguments in Mcp-Param-*
// headers, an unknown tool is not checked, a tool listed again without annotations (or with an
// invalid definition) is forgotten.
#include "shim/child_tool_headers.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace gate::shim {
namespace {

namespace json = boost::json;

json::object tools_answer(std::string_view tools) {
    return json::parse(std::string(R"({"jsonrpc":"2.0","id":1,"result":{"tools":)") +
                       std::string(tools) + "}}")
        .as_object();
}

json::object call_params(std::string_view text) {
    return json::parse(text).as_object();
}

constexpr std::string_view regional_list =
    R"([{"name":"regional","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}},
        {"name":"plain","inputSchema":{"type":"object"}}])";

TEST(child_tool_headers, a_known_tools_headers_must_mirror_its_arguments) {
    child_tool_headers tools;
    tools.learn(tools_answer(regional_list));
    EXPECT_EQ(tools.size(), 1u);
    auto params = call_params(R"({"name":"regional","arguments":{"region":"eu"}})");
    EXPECT_FALSE(tools.mismatch(&params, {{"Region", "eu"}}));
    EXPECT_FALSE(tools.mismatch(&params, {{"region", "eu"}})); // names without regard to case
    auto wrong = tools.mismatch(&params, {{"Region", "us"}});
    ASSERT_TRUE(wrong);
    EXPECT_NE(wrong->find("Mcp-Param-Region"), std::string::npos) << *wrong;
    EXPECT_TRUE(tools.mismatch(&params, {}));
    // A tool without annotations, or one never listed, is not checked.
    auto plain = call_params(R"({"name":"plain","arguments":{}})");
    EXPECT_FALSE(tools.mismatch(&plain, {{"Region", "x"}}));
    auto unknown = call_params(R"({"name":"other","arguments":{"region":"eu"}})");
    EXPECT_FALSE(tools.mismatch(&unknown, {}));
}

TEST(child_tool_headers, a_tool_listed_again_without_valid_annotations_is_forgotten) {
    child_tool_headers tools;
    tools.learn(tools_answer(regional_list));
    tools.learn(tools_answer(
        R"([{"name":"regional","inputSchema":{"type":"object","properties":{"region":{"type":"object","x-mcp-header":"Region"}}}}])"));
    EXPECT_EQ(tools.size(), 0u);
    tools.learn(tools_answer(regional_list));
    tools.learn(tools_answer(R"([{"name":"regional","inputSchema":{"type":"object"}}])"));
    EXPECT_EQ(tools.size(), 0u);
    // Not a tools answer: nothing changes.
    tools.learn(tools_answer(regional_list));
    tools.learn(call_params(R"({"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}})"));
    EXPECT_EQ(tools.size(), 1u);
}

} // namespace
} // namespace gate::shim
