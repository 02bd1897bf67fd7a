// MCP Apps' tool visibility (protocol/tool_visibility) and what gate remembers of an
// upstream's tools (gateway/upstream/listed_tools): absent visibility is every
// audience, a lone string reads as a list of one, anything else as absent; a tool another
// profile's list left out keeps what an earlier list said of it, and a later list that shows
// it to models again clears it.
#include "gateway/upstream/listed_tools.hpp"
#include "protocol/tool_visibility.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace gate::transport {
namespace {

namespace json = boost::json;

json::object tool_with_visibility(std::string_view visibility) {
    auto text = std::string(R"({"name":"t","_meta":{"ui":{"visibility":)") +
                std::string(visibility) + "}}}";
    return json::parse(text).as_object();
}

TEST(tool_visibility, absent_is_every_audience) {
    EXPECT_TRUE(protocol::visible_to_model(json::object{{"name", "t"}}));
    EXPECT_TRUE(protocol::callable_by_app(json::object{{"name", "t"}}));
    auto no_ui = json::parse(R"({"name":"t","_meta":{"ui":{"resourceUri":"ui://x"}}})");
    EXPECT_TRUE(protocol::visible_to_model(no_ui.as_object()));
}

TEST(tool_visibility, a_list_names_its_audiences) {
    EXPECT_FALSE(protocol::visible_to_model(tool_with_visibility(R"(["app"])")));
    EXPECT_TRUE(protocol::callable_by_app(tool_with_visibility(R"(["app"])")));
    EXPECT_TRUE(protocol::visible_to_model(tool_with_visibility(R"(["model"])")));
    EXPECT_FALSE(protocol::callable_by_app(tool_with_visibility(R"(["model"])")));
    EXPECT_TRUE(protocol::visible_to_model(tool_with_visibility(R"(["model","app"])")));
    EXPECT_FALSE(protocol::visible_to_model(tool_with_visibility(R"([])"))); // nobody's
    EXPECT_FALSE(protocol::callable_by_app(tool_with_visibility(R"([])")));
}

TEST(tool_visibility, a_lone_string_is_a_list_of_one_and_other_shapes_are_absent) {
    EXPECT_FALSE(protocol::visible_to_model(tool_with_visibility(R"("app")")));
    EXPECT_TRUE(protocol::visible_to_model(tool_with_visibility(R"(7)")));
    EXPECT_TRUE(protocol::visible_to_model(tool_with_visibility(R"(["app",3])")));
}

TEST(listed_tools, a_tool_is_app_only_as_the_last_list_that_showed_it_said) {
    listed_tools known;
    EXPECT_FALSE(known.app_only("poll"));
    known.learn(json::parse(R"([{"name":"poll","_meta":{"ui":{"visibility":["app"]}}},
                                {"name":"info"}])")
                    .as_array());
    EXPECT_TRUE(known.app_only("poll"));
    EXPECT_FALSE(known.app_only("info"));
    // Another profile's list leaves it out: still app-only.
    known.learn(json::parse(R"([{"name":"info"}])").as_array());
    EXPECT_TRUE(known.app_only("poll"));
    // The upstream now shows it to models.
    known.learn(json::parse(R"([{"name":"poll"}])").as_array());
    EXPECT_FALSE(known.app_only("poll"));
}

TEST(listed_tools, hints_are_as_the_last_list_declared_them_and_mcp_defaults_otherwise) {
    listed_tools known;
    EXPECT_FALSE(known.listed());
    EXPECT_FALSE(known.hints("read"));
    known.learn(json::parse(R"([{"name":"read","annotations":{"readOnlyHint":true,
                                   "destructiveHint":false,"openWorldHint":"no"}},
                                {"name":"plain"}])")
                    .as_array());
    EXPECT_TRUE(known.listed());
    auto read = known.hints("read");
    ASSERT_TRUE(read);
    EXPECT_TRUE(read->has(protocol::tool_hints::read_only));
    EXPECT_FALSE(read->has(protocol::tool_hints::destructive));
    EXPECT_TRUE(read->has(protocol::tool_hints::open_world)); // not a boolean: the default
    auto plain = known.hints("plain");
    ASSERT_TRUE(plain);
    EXPECT_EQ(*plain, protocol::tool_hints{}); // nothing declared: MCP's defaults
    EXPECT_TRUE(plain->has(protocol::tool_hints::destructive));
    EXPECT_FALSE(plain->has(protocol::tool_hints::read_only));
    // The upstream changes its mind: the later list is what counts.
    known.learn(
        json::parse(R"([{"name":"read","annotations":{"readOnlyHint":false}}])").as_array());
    EXPECT_FALSE(known.hints("read")->has(protocol::tool_hints::read_only));
}

} // namespace
} // namespace gate::transport
