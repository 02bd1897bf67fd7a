// The ui:// URIs of MCP Apps in a federation (protocol/ui_uri): named per upstream through
// the namespace codec, found again from the name, rewritten wherever lists carry them (a
// tool's `_meta.ui.resourceUri` and its flat key, a resource's `uri`, a template's), and the
// contents of a read renamed back; passthrough and other schemes untouched.
#include "protocol/list_merge.hpp"
#include "protocol/ui_uri.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace gate::protocol {
namespace {

namespace json = boost::json;

name_codec federation() {
    return name_codec("__", {std::string("basic"), std::string("basic2")});
}

TEST(ui_uri, a_view_is_named_per_upstream_and_found_again) {
    auto codec = federation();
    EXPECT_EQ(client_ui_uri(codec, 1, "ui://get-time/mcp-app.html"),
              "ui://basic2__get-time/mcp-app.html");
    auto back = upstream_ui(codec, "ui://basic2__get-time/mcp-app.html");
    ASSERT_TRUE(back);
    EXPECT_EQ(back->upstream, 1u);
    EXPECT_EQ(back->uri, "ui://get-time/mcp-app.html");
    // Not gate's name: no upstream (the resource router decides), and other schemes pass.
    EXPECT_FALSE(upstream_ui(codec, "ui://get-time/mcp-app.html"));
    EXPECT_FALSE(upstream_ui(codec, "file:///basic__x"));
    EXPECT_EQ(client_ui_uri(codec, 0, "file:///x"), "file:///x");
    name_codec passthrough("__", {std::nullopt});
    EXPECT_EQ(client_ui_uri(passthrough, 0, "ui://get-time/mcp-app.html"),
              "ui://get-time/mcp-app.html");
    EXPECT_FALSE(upstream_ui(passthrough, "ui://get-time/mcp-app.html"));
}

TEST(ui_uri, two_upstreams_serving_one_view_are_listed_apart) {
    auto codec = federation();
    auto tools = json::parse(R"([{"name":"get-time","_meta":{"ui":{"resourceUri":
        "ui://get-time/mcp-app.html","visibility":["model","app"]},"ui/resourceUri":
        "ui://get-time/mcp-app.html"}}])")
                     .as_array();
    auto resources = json::parse(R"([{"uri":"ui://get-time/mcp-app.html","name":"view"},
        {"uri":"file:///a","name":"a"}])")
                         .as_array();
    std::vector<upstream_items> tool_parts{{0, &tools}, {1, &tools}};
    auto merged = merge_lists(list_kind::tools, codec, tool_parts);
    ASSERT_EQ(merged.size(), 2u);
    EXPECT_EQ(merged[0].at("name"), "basic__get-time");
    EXPECT_EQ(merged[0].at("_meta").at("ui").at("resourceUri"),
              "ui://basic__get-time/mcp-app.html");
    EXPECT_EQ(merged[1].at("_meta").at("ui/resourceUri"), "ui://basic2__get-time/mcp-app.html");
    EXPECT_EQ(merged[1].at("_meta").at("ui").at("visibility"), json::parse(R"(["model","app"])"));
    std::vector<upstream_items> resource_parts{{0, &resources}, {1, &resources}};
    auto listed = merge_lists(list_kind::resources, codec, resource_parts);
    ASSERT_EQ(listed.size(), 4u);
    EXPECT_EQ(listed[0].at("uri"), "ui://basic__get-time/mcp-app.html");
    EXPECT_EQ(listed[1].at("uri"), "file:///a") << "other schemes are never rewritten";
    EXPECT_EQ(listed[2].at("uri"), "ui://basic2__get-time/mcp-app.html");
    EXPECT_EQ(listed[2].at("name"), "view") << "a resource's name is not namespaced";
    auto templates = json::parse(R"({"uriTemplate":"ui://charts/{id}.html"})").as_object();
    EXPECT_TRUE(rewrite_ui_uris(list_kind::resource_templates, codec, 0, templates));
    EXPECT_EQ(templates.at("uriTemplate"), "ui://basic__charts/{id}.html");
    auto plain = json::parse(R"({"name":"t","_meta":{"ui":{"visibility":["app"]}}})").as_object();
    EXPECT_FALSE(rewrite_ui_uris(list_kind::tools, codec, 0, plain));
}

TEST(ui_uri, a_reads_contents_are_renamed_to_what_the_client_asked_for) {
    auto response = json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"contents":[
        {"uri":"ui://get-time/mcp-app.html","mimeType":"text/html;profile=mcp-app","text":"<p>"},
        {"uri":"ui://other/x.html","text":""}]}})")
                        .as_object();
    EXPECT_TRUE(restore_read_uris(response, "ui://get-time/mcp-app.html",
                                  "ui://basic__get-time/mcp-app.html"));
    const auto& contents = response.at("result").at("contents").as_array();
    EXPECT_EQ(contents[0].at("uri"), "ui://basic__get-time/mcp-app.html");
    EXPECT_EQ(contents[1].at("uri"), "ui://other/x.html");
    auto error = json::parse(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32602}})").as_object();
    EXPECT_FALSE(restore_read_uris(error, "a", "b"));
}

} // namespace
} // namespace gate::protocol
