// MCP Apps' tool visibility (protocol/tool_visibility) and what gate remembers of an
// upstream's tools (gateway/upstream/listed_tools): absent visibility is every
// audience, a lone string reads as a list of one, anything else as absent; a tool another
// profile's list left out keeps what an earlier list said of it, and a later list that shows
// it to models again clears it. Pinned definitions: the fleet's pins agreed on before a list
// is judged, a changed tool withheld under block with its text, what has no name kept.
#include "gateway/upstream/listed_tools.hpp"
#include "protocol/tool_definition.hpp"
#include "protocol/tool_visibility.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace gate::gateway {
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

// The gateway's side as a fleet of one other instance that saw `first` of each tool first:
// its pins are the store's, agreed before any judgement.
struct fleet_watch final : definition_watch {
    policy::pin_mode mode = policy::pin_mode::block;
    std::map<std::string, std::string> first; // the store's pins
    std::vector<std::string> agreed;          // the tools asked of the store, in order
    policy::definition_pins pins;
    policy::pin_mode mode_of(const config::upstream&) const override { return mode; }
    std::optional<policy::definition_change> judge(const std::string& upstream,
                                                   const std::string& tool,
                                                   const std::string& digest,
                                                   policy::pin_mode) override {
        return pins.judge(upstream, tool, digest);
    }
    boost::asio::awaitable<void> agree(const std::string& upstream,
                                       const std::vector<listed_definition>& listed) override {
        for (const auto& l : listed) {
            agreed.push_back(l.tool);
            auto it = first.find(l.tool);
            pins.pin_shared(upstream, l.tool, it == first.end() ? l.digest : it->second, {});
        }
        co_return;
    }
};

void withhold(listed_tools& known, json::array& tools, std::vector<std::string>& texts,
              definition_watch& watch) {
    config::upstream cfg;
    cfg.id = "up";
    boost::asio::io_context io;
    boost::asio::co_spawn(io, known.withhold_changed(tools, &texts, watch, cfg),
                          boost::asio::detached);
    io.run();
}

TEST(listed_tools, a_tool_another_instance_pinned_first_is_withheld_when_it_differs) {
    auto tools = json::parse(R"([{"name":"echo","description":"v2"},{"title":"no name"},
                                 {"name":"add","description":"same"}])")
                     .as_array();
    std::vector<std::string> texts{"echo-text", "unnamed-text", "add-text"};
    fleet_watch watch;
    watch.first["echo"] = protocol::definition_digest(
        json::parse(R"({"name":"echo","description":"v1"})").as_object());
    listed_tools known;
    withhold(known, tools, texts, watch);
    EXPECT_EQ(watch.agreed, (std::vector<std::string>{"echo", "add"}));
    ASSERT_EQ(tools.size(), 2u); // echo withheld; the item without a name and add kept
    EXPECT_EQ(tools[0].as_object().at("title"), "no name");
    EXPECT_EQ(tools[1].as_object().at("name"), "add");
    EXPECT_EQ(texts, (std::vector<std::string>{"unnamed-text", "add-text"}));
    ASSERT_NE(known.withheld("echo"), nullptr);
    EXPECT_NE(known.withheld("echo")->find("changed from " + watch.first["echo"]),
              std::string::npos);
    EXPECT_TRUE(known.blocks());
    // Under warn the same change is served.
    auto again = json::parse(R"([{"name":"echo","description":"v2"}])").as_array();
    std::vector<std::string> one{"echo-text"};
    watch.mode = policy::pin_mode::warn;
    withhold(known, again, one, watch);
    EXPECT_EQ(again.size(), 1u);
    EXPECT_EQ(known.withheld("echo"), nullptr);
    EXPECT_FALSE(known.blocks());
}

// Lists differ per client profile: a list that leaves out a tool another list withheld does not
// make it callable; a list that names it judges it again.
TEST(listed_tools, a_judgement_changes_only_the_tools_its_list_named) {
    fleet_watch watch;
    auto v1 = json::parse(R"({"name":"echo","description":"v1"})").as_object();
    watch.first["echo"] = protocol::definition_digest(v1);
    auto judged_of = [&](const char* list, std::vector<std::string>& named) {
        auto tools = json::parse(list).as_array();
        named.clear();
        for (const auto& t : tools)
            named.emplace_back(t.as_object().at("name").as_string());
        std::vector<std::string> texts(tools.size());
        listed_tools scratch;
        withhold(scratch, tools, texts, watch);
        return scratch;
    };
    listed_tools known;
    std::vector<std::string> named;
    known.take_judgement(judged_of(R"([{"name":"echo","description":"v2"},{"name":"add"}])", named),
                         named);
    ASSERT_NE(known.withheld("echo"), nullptr);
    EXPECT_TRUE(known.blocks());
    // Another profile's list, without the tool.
    known.take_judgement(judged_of(R"([{"name":"add"}])", named), named);
    EXPECT_NE(known.withheld("echo"), nullptr) << "left out is not judged fine";
    // A list that shows it as pinned.
    known.take_judgement(judged_of(R"([{"name":"echo","description":"v1"}])", named), named);
    EXPECT_EQ(known.withheld("echo"), nullptr);
}

} // namespace
} // namespace gate::gateway
