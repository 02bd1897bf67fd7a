#include "actors/federation/federation.hpp"
#include "protocol/json_rpc.hpp"
#include "test_config.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using namespace gate;
using protocol::list_kind;
namespace json = boost::json;
constexpr auto full = protocol::full_profile;

namespace {
gate::actors::federation make(std::int64_t page_size = 200, std::int64_t ttl = 30000) {
    protocol::cursor_codec::key_type key{};
    return gate::actors::federation(test::two_upstreams(page_size, ttl),
                                    protocol::cursor_codec(key));
}
json::array tools(std::initializer_list<const char*> names) {
    json::array a;
    for (auto n : names)
        a.push_back(json::object{{"name", n}});
    return a;
}
const gate::actors::time_point t0{};
} // namespace

TEST(federation, everything_is_stale_until_stored_then_expires_after_ttl) {
    auto f = make();
    EXPECT_EQ(f.stale(list_kind::tools, full, t0).size(), 2u);
    f.store(0, list_kind::tools, full, tools({"echo"}), t0);
    EXPECT_EQ(f.stale(list_kind::tools, full, t0), std::vector<std::size_t>{1});
    EXPECT_EQ(f.stale(list_kind::tools, full, t0 + std::chrono::milliseconds(29999)).size(), 1u);
    EXPECT_EQ(f.stale(list_kind::tools, full, t0 + std::chrono::milliseconds(30000)).size(), 2u);
}

TEST(federation, negative_ttl_disables_caching) {
    auto f = make(200, -1);
    f.store(0, list_kind::tools, full, tools({"echo"}), t0);
    EXPECT_EQ(f.stale(list_kind::tools, full, t0).size(), 2u);
}

TEST(federation, lists_of_per_user_credential_strategies_are_never_cached) {
    for (auto strategy : {"passthrough", "token-exchange"}) {
        auto doc = std::make_shared<config::document>(*test::two_upstreams()->doc);
        doc->upstreams[0].auth.strategy = strategy;
        doc->upstreams[1].auth.strategy = "client-credentials";
        gate::actors::federation f(gate::actors::make_snapshot(doc, 1),
                                   protocol::cursor_codec::with_random_key());
        f.store(0, list_kind::tools, full, tools({"echo"}), t0);
        f.store(1, list_kind::tools, full, tools({"echo"}), t0);
        // The per-user upstream is fetched again for the next caller; the other is cached.
        EXPECT_EQ(f.stale(list_kind::tools, full, t0), std::vector<std::size_t>{0}) << strategy;
    }
}

TEST(federation, the_catalog_never_reads_a_per_user_upstreams_entry) {
    // What the cache holds of a per-user upstream is the last caller's list: the console's
    // catalog (cached) must not show it to another viewer.
    for (auto strategy : {"passthrough", "token-exchange"}) {
        auto doc = std::make_shared<config::document>(*test::two_upstreams()->doc);
        doc->upstreams[0].auth.strategy = strategy;
        gate::actors::federation f(gate::actors::make_snapshot(doc, 1),
                                   protocol::cursor_codec::with_random_key());
        f.store(0, list_kind::tools, full, tools({"only_alice"}), t0);
        f.store(1, list_kind::tools, full, tools({"echo"}), t0);
        auto held = f.cached(list_kind::tools, full);
        ASSERT_EQ(held.size(), 1u) << strategy;
        EXPECT_EQ(held[0].first, 1u) << strategy;
    }
}

TEST(federation, pages_with_cursors_bound_to_caller_and_list) {
    auto f = make(2);
    f.store(0, list_kind::tools, full, tools({"x", "y"}), t0);
    f.store(1, list_kind::tools, full, tools({"z"}), t0);
    auto first =
        std::get<gate::actors::list_answer>(f.page(list_kind::tools, full, std::nullopt, 7));
    ASSERT_EQ(first.items_served, 2u);
    auto cursor = std::string(first.result().at("nextCursor").as_string());
    auto second = std::get<gate::actors::list_answer>(f.page(list_kind::tools, full, cursor, 7));
    EXPECT_EQ(second.result().at("tools").as_array()[0].at("name"), "b__z");
    EXPECT_FALSE(second.result().contains("nextCursor"));
    // Another caller, another list, or garbage: -32602.
    for (auto r :
         {f.page(list_kind::tools, full, cursor, 8), f.page(list_kind::prompts, full, cursor, 7),
          f.page(list_kind::tools, full, std::string("garbage"), 7)})
        EXPECT_EQ(protocol::describe(std::get<gate::actors::route_error>(r).error).rpc_code,
                  protocol::error_code::invalid_params);
}

TEST(federation, cursor_goes_stale_when_the_merged_list_changes) {
    auto f = make(1);
    f.store(0, list_kind::tools, full, tools({"x"}), t0);
    f.store(1, list_kind::tools, full, tools({"z"}), t0);
    auto first =
        std::get<gate::actors::list_answer>(f.page(list_kind::tools, full, std::nullopt, 7));
    auto cursor = std::string(first.result().at("nextCursor").as_string());
    f.drop(1, list_kind::tools, full);
    auto r = f.page(list_kind::tools, full, cursor, 7);
    auto& err = std::get<gate::actors::route_error>(r);
    EXPECT_EQ(protocol::describe(err.error).rpc_code, protocol::error_code::invalid_params);
    EXPECT_NE(err.message.find("expired"), std::string::npos);
}

TEST(federation, named_calls_resolve_and_strip_the_prefix) {
    auto f = make();
    auto r =
        f.resolve("tools/call", json::parse(R"({"name":"b__echo","arguments":{}})").as_object());
    auto& ok = std::get<actors::route>(r);
    EXPECT_EQ(ok.upstream, 1u);
    EXPECT_EQ(ok.params.at("name"), "echo");
    EXPECT_EQ(ok.name, "b__echo");
    auto bad = f.resolve("prompts/get", json::parse(R"({"name":"zz__p"})").as_object());
    EXPECT_EQ(protocol::describe(std::get<gate::actors::route_error>(bad).error).rpc_code,
              protocol::error_code::unknown_namespace);
}

TEST(federation, resources_route_to_the_upstream_that_listed_them) {
    auto f = make();
    auto uri = json::parse(R"({"uri":"demo://b/1"})").as_object();
    auto before = std::get<gate::actors::route_error>(f.resolve("resources/read", uri));
    EXPECT_TRUE(before.needs_resource_lists);
    f.store(0, list_kind::resources, full, json::parse(R"([{"uri":"demo://a/1"}])").as_array(), t0);
    f.store(1, list_kind::resources, full, json::parse(R"([{"uri":"demo://b/1"}])").as_array(), t0);
    EXPECT_EQ(std::get<actors::route>(f.resolve("resources/read", uri)).upstream, 1u);
    // The URI itself is never rewritten.
    EXPECT_EQ(std::get<actors::route>(f.resolve("resources/read", uri)).params.at("uri"),
              "demo://b/1");
}

TEST(federation, template_minted_uris_route_by_template_prefix) {
    auto f = make();
    f.store(0, list_kind::resources, full, json::array{}, t0);
    f.store(1, list_kind::resources, full, json::array{}, t0);
    f.store(1, list_kind::resource_templates, full,
            json::parse(R"([{"uriTemplate":"demo://resource/dynamic/{id}"}])").as_array(), t0);
    auto r = f.resolve("resources/read",
                       json::parse(R"({"uri":"demo://resource/dynamic/7"})").as_object());
    EXPECT_EQ(std::get<actors::route>(r).upstream, 1u);
    auto unknown = f.resolve("resources/read", json::parse(R"({"uri":"other://x"})").as_object());
    EXPECT_FALSE(std::get<gate::actors::route_error>(unknown).needs_resource_lists);
}

TEST(federation, completion_routes_by_prompt_namespace) {
    auto f = make();
    auto r = f.resolve(
        "completion/complete",
        json::parse(
            R"({"ref":{"type":"ref/prompt","name":"a__p"},"argument":{"name":"x","value":""}})")
            .as_object());
    auto& ok = std::get<actors::route>(r);
    EXPECT_EQ(ok.upstream, 0u);
    EXPECT_EQ(ok.params.at("ref").at("name"), "p");
    EXPECT_EQ(ok.params.at("argument").at("name"), "x");
}

TEST(federation, unknown_methods_are_refused_when_namespaced) {
    auto f = make();
    auto r = f.resolve("tasks/get", json::object{});
    EXPECT_EQ(protocol::describe(std::get<gate::actors::route_error>(r).error).rpc_code,
              protocol::error_code::method_not_found);
}

TEST(federation, a_merged_list_is_made_again_after_every_change) {
    auto f = make();
    f.store(0, list_kind::tools, full, tools({"x"}), t0);
    auto names = [&] {
        std::vector<std::string> out;
        auto page =
            std::get<gate::actors::list_answer>(f.page(list_kind::tools, full, std::nullopt, 7));
        auto result = page.result();
        for (const auto& t : result.at("tools").as_array())
            out.emplace_back(t.at("name").as_string());
        return out;
    };
    EXPECT_EQ(names(), (std::vector<std::string>{"a__x"}));
    EXPECT_EQ(names(), (std::vector<std::string>{"a__x"})); // served from the merged list
    f.store(1, list_kind::tools, full, tools({"y"}), t0);
    EXPECT_EQ(names(), (std::vector<std::string>{"a__x", "b__y"}));
    f.drop(0, list_kind::tools, full);
    EXPECT_EQ(names(), (std::vector<std::string>{"b__y"}));
    f.invalidate_id("up-b");
    EXPECT_TRUE(names().empty());
}

TEST(federation, with_a_policy_each_caller_gets_its_own_list_until_a_change) {
    auto doc = std::make_shared<config::document>(*test::two_upstreams()->doc);
    config::policy p;
    config::subjects alice;
    alice.subs = {"alice"};
    p.rules.push_back({"a", alice, {{"up-a", {"tools/call"}, {"x*"}}}});
    doc->policy = p;
    gate::actors::federation f(gate::actors::make_snapshot(doc, 1),
                               protocol::cursor_codec::with_random_key());
    f.store(0, list_kind::tools, full, tools({"x1", "y1"}), t0);
    gate::policy::principal a{"alice", "https://idp", {}, {}}, b{"bob", "https://idp", {}, {}};
    auto count = [&](const gate::policy::principal* who) {
        return std::get<gate::actors::list_answer>(
                   f.page(list_kind::tools, full, std::nullopt, 7, who))
            .items_served;
    };
    EXPECT_EQ(count(&a), 1u);
    EXPECT_EQ(count(&b), 0u);
    EXPECT_EQ(count(&a), 1u);
    f.store(0, list_kind::tools, full, tools({"x1", "x2"}), t0);
    EXPECT_EQ(count(&a), 2u);
    EXPECT_EQ(count(nullptr), 0u);
}

TEST(federation, each_client_profile_has_its_own_lists) {
    auto f = make();
    constexpr auto bare = protocol::client_profile{0};
    f.store(0, list_kind::tools, full, tools({"echo", "sample"}), t0);
    f.store(1, list_kind::tools, full, tools({"z"}), t0);
    // A client that declares nothing is not served the full profile's list.
    EXPECT_EQ(f.stale(list_kind::tools, bare, t0).size(), 2u);
    f.store(0, list_kind::tools, bare, tools({"echo"}), t0);
    f.store(1, list_kind::tools, bare, tools({"z"}), t0);
    auto names = [&](protocol::client_profile p) {
        std::vector<std::string> out;
        auto page =
            std::get<gate::actors::list_answer>(f.page(list_kind::tools, p, std::nullopt, 7));
        auto result = page.result();
        for (const auto& t : result.at("tools").as_array())
            out.emplace_back(t.at("name").as_string());
        return out;
    };
    EXPECT_EQ(names(full), (std::vector<std::string>{"a__echo", "a__sample", "b__z"}));
    EXPECT_EQ(names(bare), (std::vector<std::string>{"a__echo", "b__z"}));
    // An upstream's list change empties every profile's cache of it.
    f.invalidate(0);
    EXPECT_EQ(f.stale(list_kind::tools, full, t0), std::vector<std::size_t>{0});
    EXPECT_EQ(f.stale(list_kind::tools, bare, t0), std::vector<std::size_t>{0});
}

TEST(federation, a_uri_listed_to_any_profile_routes_to_its_upstream) {
    auto f = make();
    f.store(0, list_kind::resources, protocol::client_profile{0},
            json::parse(R"([{"uri":"demo://a/1"}])").as_array(), t0);
    f.store(1, list_kind::resources, full, json::parse(R"([{"uri":"demo://b/1"}])").as_array(), t0);
    EXPECT_TRUE(f.resource_lists_known());
    auto r = f.resolve("resources/read", json::object{{"uri", "demo://a/1"}});
    ASSERT_TRUE(std::holds_alternative<actors::route>(r));
    EXPECT_EQ(std::get<actors::route>(r).upstream, 0u);
}

TEST(federation, a_tenant_is_listed_only_the_upstreams_it_sees) {
    auto doc = std::make_shared<config::document>(*test::two_upstreams()->doc);
    config::tenant acme;
    acme.id = "acme";
    acme.subjects.groups = {"acme"};
    acme.upstreams = std::vector<std::string>{"up-a"};
    doc->tenants.push_back(acme);
    protocol::cursor_codec::key_type key{};
    gate::actors::federation f(gate::actors::make_snapshot(doc, 1), protocol::cursor_codec(key));
    f.store(0, list_kind::tools, full, tools({"x"}), t0);
    f.store(1, list_kind::tools, full, tools({"y"}), t0);
    auto names = [&](const gate::policy::principal* who, std::optional<std::size_t> tenant) {
        std::vector<std::string> out;
        auto page = std::get<gate::actors::list_answer>(
            f.page(list_kind::tools, full, std::nullopt, 7, who, tenant));
        auto result = page.result();
        for (const auto& t : result.at("tools").as_array())
            out.emplace_back(t.at("name").as_string());
        return out;
    };
    gate::policy::principal alice{"alice", "https://idp.example", {"acme"}, {}};
    gate::policy::principal ann{"ann", "https://idp.example", {"acme"}, {}};
    gate::policy::principal bob{"bob", "https://idp.example", {"other"}, {}};
    // Stage 2 placed alice and ann in acme (index 0), bob in none.
    EXPECT_EQ(names(&alice, 0), std::vector<std::string>{"a__x"});
    EXPECT_EQ(names(&ann, 0), std::vector<std::string>{"a__x"});
    EXPECT_EQ(names(&bob, std::nullopt), (std::vector<std::string>{"a__x", "b__y"}));
    EXPECT_EQ(names(nullptr, std::nullopt), (std::vector<std::string>{"a__x", "b__y"}));
}

namespace {
// Two upstreams, "a" and "b", whose names over 20 characters are shortened.
gate::actors::federation make_shortening() {
    auto doc = std::make_shared<config::document>(*test::two_upstreams()->doc);
    doc->routing.max_name_length = 20;
    return gate::actors::federation(gate::actors::make_snapshot(doc, 1),
                                    protocol::cursor_codec::with_random_key());
}
} // namespace

TEST(federation, a_short_alias_is_listed_and_routed_to_the_name_it_stands_for) {
    auto f = make_shortening();
    f.store(0, list_kind::tools, full, tools({"echo", "a_rather_long_tool_name"}), t0);
    f.store(1, list_kind::tools, full, tools({"a_rather_long_tool_name"}), t0);
    auto page =
        std::get<gate::actors::list_answer>(f.page(list_kind::tools, full, std::nullopt, 7));
    auto items = json::parse(*page.items).as_array();
    ASSERT_EQ(items.size(), 3u);
    std::string alias_a(items[1].at("name").as_string());
    std::string alias_b(items[2].at("name").as_string());
    EXPECT_EQ(alias_a.size(), 20u);
    EXPECT_NE(alias_a, alias_b); // the namespace is part of what the digest is of
    auto r =
        f.resolve("tools/call", json::object{{"name", alias_b}, {"arguments", json::object{}}});
    auto& ok = std::get<actors::route>(r);
    EXPECT_EQ(ok.upstream, 1u);
    EXPECT_EQ(ok.params.at("name"), "a_rather_long_tool_name");
    EXPECT_EQ(ok.name, alias_b); // audited as the client sent it
}

TEST(federation, an_alias_is_reversed_only_once_the_upstreams_list_is_known) {
    auto f = make_shortening();
    auto alias = make_shortening().snapshot_ptr()->codec.client_name(0, "a_rather_long_prompt");
    auto unknown = f.resolve("prompts/get", json::object{{"name", alias}});
    auto& err = std::get<gate::actors::route_error>(unknown);
    EXPECT_TRUE(err.needs_name_lists);
    EXPECT_EQ(err.error, protocol::gateway_error::upstream_unreachable);
    EXPECT_NE(err.message.find("could not fetch"), std::string::npos) << err.message;
    // Known lists of another kind do not help: a prompt's alias needs the prompts list.
    f.store(0, list_kind::tools, full, tools({"a_rather_long_prompt"}), t0);
    EXPECT_TRUE(std::holds_alternative<gate::actors::route_error>(
        f.resolve("prompts/get", json::object{{"name", alias}})));
    f.store(0, list_kind::prompts, full, tools({"a_rather_long_prompt"}), t0);
    auto r = f.resolve("prompts/get", json::object{{"name", alias}});
    EXPECT_EQ(std::get<actors::route>(r).params.at("name"), "a_rather_long_prompt");
    // A completion of the prompt's argument names it by the alias too.
    auto c =
        f.resolve("completion/complete",
                  json::object{{"ref", json::object{{"type", "ref/prompt"}, {"name", alias}}}});
    EXPECT_EQ(std::get<actors::route>(c).params.at("ref").at("name"), "a_rather_long_prompt");
}

TEST(federation, a_name_of_the_alias_shape_that_nothing_shortens_to_is_called_as_sent) {
    auto f = make_shortening();
    f.store(0, list_kind::tools, full, tools({"echo"}), t0);
    // 20 characters of the alias shape, and no listed name shortens to it.
    std::string lookalike = "a__abcdefgh-0123abcd";
    auto r = f.resolve("tools/call", json::object{{"name", lookalike}});
    EXPECT_EQ(std::get<actors::route>(r).params.at("name"), "abcdefgh-0123abcd");
    // The io thread's resolution leaves it to the router, which holds the lists.
    json::object params{{"name", lookalike}};
    EXPECT_FALSE(resolve_by_name(*f.snapshot_ptr(), "tools/call", params));
    EXPECT_EQ(params.at("name").as_string(), lookalike); // untouched
}

TEST(federation, two_names_that_shorten_to_one_alias_are_refused_by_it) {
    auto f = make_shortening();
    // SHA-256 of "a__collides_in_the_digest_29946" and "a__collides_in_the_digest_56114"
    // begin with the same 8 hex digits (found by search): an upstream that wanted to confuse
    // its own callers.
    const char* one = "collides_in_the_digest_29946";
    const char* other = "collides_in_the_digest_56114";
    f.store(0, list_kind::tools, full, tools({one, other}), t0);
    const auto& codec = f.snapshot_ptr()->codec;
    auto alias = codec.client_name(0, one);
    ASSERT_EQ(alias.size(), 20u);
    ASSERT_EQ(alias, codec.client_name(0, other));
    auto r = f.resolve("tools/call", json::object{{"name", alias}});
    auto& err = std::get<gate::actors::route_error>(r);
    EXPECT_EQ(err.error, protocol::gateway_error::unknown_namespace);
    EXPECT_NE(err.message.find("shortened name of 2 names of one upstream"), std::string::npos)
        << err.message;
}

TEST(federation, an_upstreams_list_change_drops_its_own_entries_only_in_every_profile_and_kind) {
    // A storm of list_changed from every upstream: each drops its own run of the cache, and
    // every other upstream's lists stay served from it.
    auto doc = std::make_shared<config::document>();
    for (int i = 0; i < 300; ++i) {
        config::upstream u;
        u.id = "u" + std::to_string(i);
        u.urls = {"http://127.0.0.1:1/mcp"};
        u.namespace_ = u.id;
        u.cache_ttl_ms = 30000;
        doc->upstreams.push_back(u);
    }
    gate::actors::federation f(gate::actors::make_snapshot(doc, 1),
                               protocol::cursor_codec::with_random_key());
    constexpr auto bare = protocol::client_profile{0};
    for (std::size_t i = 0; i < 300; ++i)
        for (auto kind : {list_kind::tools, list_kind::prompts, list_kind::resources})
            for (auto profile : {full, bare})
                f.store(i, kind, profile, tools({"x"}), t0);
    for (std::size_t i = 0; i < 300; i += 2)
        f.invalidate(i);
    for (auto kind : {list_kind::tools, list_kind::prompts, list_kind::resources})
        for (auto profile : {full, bare}) {
            auto stale = f.stale(kind, profile, t0);
            ASSERT_EQ(stale.size(), 150u);
            for (auto i : stale)
                EXPECT_EQ(i % 2, 0u) << "only the upstreams that changed are fetched again";
        }
    EXPECT_EQ(f.cached(list_kind::tools, full).size(), 150u);
    f.invalidate(299); // the last upstream's run ends the map
    EXPECT_EQ(f.cached(list_kind::tools, full).size(), 149u);
}
