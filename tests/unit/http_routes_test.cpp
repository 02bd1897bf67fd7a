// gate's route table, decided without a server: each endpoint's path and methods, what another
// method gets (405 with its Allow, or 404), what is off until its section turns it on, and the
// MCP endpoint and resource metadata paths following the running document's MCP path.
#include "gateway/entry/gate_routes.hpp"

#include <gtest/gtest.h>

namespace gate::gateway {
namespace {

using boost::beast::http::verb;

route_switches all_on() {
    return {.introspection = true,
            .console = true,
            .own_tokens = true,
            .inbound_auth = true,
            .fault_hooks = true};
}

route_decision<endpoint> decide(std::string_view path, verb method,
                                const route_switches& on = all_on(),
                                std::string_view mcp_path = "/mcp") {
    return find_route(std::span<const gate_route>(gate_routes), path, method, mcp_path, on);
}

// The endpoint that answers, or nullopt.
std::optional<endpoint> answered(std::string_view path, verb method,
                                 const route_switches& on = all_on(),
                                 std::string_view mcp_path = "/mcp") {
    auto d = decide(path, method, on, mcp_path);
    EXPECT_FALSE(d.row && d.refused) << path << ": answered and refused at once";
    return d.row ? std::optional(d.row->handler) : std::nullopt;
}

TEST(http_routes, the_mcp_endpoint_enters_the_chain_by_its_methods_door) {
    for (auto [method, door, e] :
         {std::tuple{verb::post, pipeline::door::message, endpoint::mcp_message},
          std::tuple{verb::get, pipeline::door::stream, endpoint::mcp_stream},
          std::tuple{verb::delete_, pipeline::door::close, endpoint::mcp_close}}) {
        auto d = decide("/mcp", method);
        ASSERT_TRUE(d.row);
        EXPECT_FALSE(d.refused); // the rows before it answer other methods
        EXPECT_EQ(d.row->handler, e);
        EXPECT_EQ(d.row->door, door);
    }
    auto put = decide("/mcp", verb::put);
    EXPECT_FALSE(put.row);
    EXPECT_EQ(put.refused, other_methods::method_not_allowed);
    EXPECT_EQ(put.allow, "GET, POST, DELETE");
    // The running document's path, whatever it is; the default one is then nobody's.
    EXPECT_EQ(answered("/gate/v1", verb::post, all_on(), "/gate/v1"), endpoint::mcp_message);
    auto old = decide("/mcp", verb::post, all_on(), "/gate/v1");
    EXPECT_FALSE(old.row);
    EXPECT_FALSE(old.refused); // 404
}

TEST(http_routes, the_views_enter_by_the_view_door_answer_get_only_and_need_introspection) {
    for (auto [path, e] : {std::pair{"/api/federation", endpoint::federation_view},
                           std::pair{"/api/explain", endpoint::explain_view},
                           std::pair{"/api/traffic", endpoint::traffic_view},
                           std::pair{"/api/catalog", endpoint::catalog_view}}) {
        auto d = decide(path, verb::get);
        ASSERT_TRUE(d.row) << path;
        EXPECT_EQ(d.row->handler, e);
        EXPECT_EQ(d.row->door, pipeline::door::view);
        auto post = decide(path, verb::post);
        EXPECT_EQ(post.refused, other_methods::get_only) << path;
        EXPECT_EQ(post.allow, "GET");
        auto off = decide(path, verb::get, {});
        EXPECT_FALSE(off.row || off.refused) << path; // 404 without introspection
    }
    EXPECT_EQ(answered("/api/auth-hint", verb::get), endpoint::auth_hint);
    EXPECT_EQ(decide("/api/auth-hint", verb::delete_).refused, other_methods::get_only);
    auto unknown = decide("/api/nothing", verb::get);
    EXPECT_FALSE(unknown.row || unknown.refused);
}

TEST(http_routes, the_token_endpoint_and_metadata_answer_only_their_method_and_switch) {
    EXPECT_EQ(answered("/oauth/token", verb::post), endpoint::token_redemption);
    EXPECT_EQ(answered("/.well-known/jwks.json", verb::get), endpoint::token_keys);
    EXPECT_EQ(answered("/.well-known/oauth-authorization-server", verb::get),
              endpoint::token_issuer_metadata);
    for (auto path : {"/oauth/token", "/.well-known/jwks.json"}) {
        auto other = decide(path, verb::put); // another method: 404, as before the table
        EXPECT_FALSE(other.row || other.refused) << path;
        EXPECT_FALSE(answered(path, path[1] == 'o' ? verb::post : verb::get, {})) << path;
    }
    EXPECT_EQ(answered("/.well-known/oauth-protected-resource", verb::get),
              endpoint::resource_metadata);
    EXPECT_EQ(answered("/.well-known/oauth-protected-resource/mcp", verb::get),
              endpoint::resource_metadata);
    EXPECT_EQ(
        answered("/.well-known/oauth-protected-resource/gate/v1", verb::get, all_on(), "/gate/v1"),
        endpoint::resource_metadata);
    EXPECT_FALSE(answered("/.well-known/oauth-protected-resource/other", verb::get));
    route_switches no_auth = all_on();
    no_auth.inbound_auth = false;
    EXPECT_FALSE(answered("/.well-known/oauth-protected-resource/mcp", verb::get, no_auth));
}

TEST(http_routes, the_console_health_metrics_icons_and_fault_hooks) {
    EXPECT_EQ(answered("/console", verb::get), endpoint::console_root);
    EXPECT_EQ(answered("/console/", verb::get), endpoint::console_asset);
    EXPECT_EQ(answered("/console/app.js", verb::get), endpoint::console_asset);
    auto post = decide("/console/app.js", verb::post);
    EXPECT_EQ(post.refused, other_methods::get_only);
    EXPECT_EQ(post.allow, "GET");
    route_switches no_console = all_on();
    no_console.console = false;
    EXPECT_FALSE(decide("/console/", verb::get, no_console).row);
    EXPECT_FALSE(decide("/console/", verb::post, no_console).refused);

    EXPECT_EQ(answered("/health", verb::get), endpoint::health);
    EXPECT_EQ(answered("/metrics", verb::get), endpoint::metrics);
    EXPECT_FALSE(decide("/health", verb::post).refused);           // 404, as before the table
    EXPECT_EQ(answered("/icons/abc", verb::head), endpoint::icon); // every method: it tells
    EXPECT_EQ(answered("/_test/kill-supervisor", verb::post), endpoint::fault_hook);
    EXPECT_FALSE(answered("/_test/kill-supervisor", verb::post, {}));
    auto nothing = decide("/nothing", verb::get);
    EXPECT_FALSE(nothing.row || nothing.refused);
}

// Every endpoint has a row (a handler nobody can reach is a table that lost a row).
TEST(http_routes, every_endpoint_has_a_row) {
    for (int e = 0; e <= static_cast<int>(endpoint::fault_hook); ++e) {
        bool found = false;
        for (const auto& row : gate_routes)
            found |= row.handler == static_cast<endpoint>(e);
        EXPECT_TRUE(found) << e;
    }
}

} // namespace
} // namespace gate::gateway
