// Stage 4's routing of a named call (gateway/mcp/call_routes.hpp) over a fake resource router
// and the real list methods on a fake of their services: a tool's name routed at once with its
// params moved into the route (the router unasked), an unknown namespace refused with the name
// noted, a method the names do not route left to the router; the router's route for a URI, its
// silence refused; and a URI whose owner the router does not know yet: the resource lists and
// templates fetched once as gate's own (the caller carried on a side request, its upstream
// calls counted on the caller's), then routed again, and refused when still unknown. A routed
// tools/call's policy is decided once, by stage 5: routing asks it nothing of a tool no
// refusal of its own applies to.
#include "gateway/mcp/call_routes.hpp"
#include "gateway/pipeline/s5_authorize.hpp"
#include "gateway/upstream/tool_facts.hpp"
#include "gateway/upstream/upstream_client.hpp"
#include "gateway/upstream/upstream_siblings.hpp"
#include "policy/policy_engine.hpp"
#include "protocol/json_rpc.hpp"
#include "tests/support/kept_tool_selections.hpp"
#include "tests/unit/stage_rig.hpp"

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

namespace gate::gateway {
namespace {

namespace json = boost::json;
using protocol::gateway_error;
using protocol::list_kind;

// Answers with the routes it is given, in turn, and notes what it was asked.
struct fake_resolver final : route_resolver, client_profiles {
    std::deque<std::optional<actors::routed>> answers; // empty: no answer (nullopt)
    std::vector<std::string> asked;                    // the methods
    std::vector<json::object> params;                  // as handed, per call
    std::vector<const request_context*> contexts;

    boost::asio::awaitable<std::optional<actors::routed>>
    resolve(request_context& ctx, const std::string& method, const json::object& p) override {
        asked.push_back(method);
        params.push_back(p);
        contexts.push_back(&ctx);
        co_await test::suspend_once();
        if (answers.empty())
            co_return std::nullopt;
        auto a = std::move(answers.front());
        answers.pop_front();
        co_return a;
    }
    protocol::client_profile profile = protocol::full_profile;
    protocol::client_profile profile_of(request_context&) override { return profile; }
};

// The list services of gate's own lists: every upstream planned, each answering one item.
struct fake_lists final : test::kept_tool_selections, list_fetcher, list_sharing, upstream_counts {
    boost::asio::awaitable<void> fill_from_fleet(list_kind, actors::list_plan&,
                                                 const request_context&) override {
        co_return;
    }
    void drop_shared_lists(const upstream_client&) override {}
    std::vector<std::string> asked; // "plan <list>", "fetch <list> <upstream>", "complete <list>"
    struct seen {
        const request_context* ctx;
        policy::caller_ref caller;
        std::optional<protocol::client_profile> profile;
        std::string session;
    };
    std::vector<seen> contexts; // every request each service was handed

    void note(std::string what, request_context& ctx) {
        asked.push_back(std::move(what));
        contexts.push_back({&ctx, ctx.who.caller, ctx.client.profile, ctx.client.session});
    }
    static std::string method(list_kind k) { return std::string(protocol::traits(k).method); }

    boost::asio::awaitable<std::optional<actors::list_plan>> plan(list_kind kind,
                                                                  request_context& ctx) override {
        note("plan " + method(kind), ctx);
        co_await test::suspend_once();
        co_return actors::list_plan{ctx.view->snap, {0, 1}};
    }
    boost::asio::awaitable<std::variant<json::array, upstream_failure>>
    fetch(list_kind kind, protocol::client_profile, std::size_t upstream, std::string, ticket,
          request_context& ctx, std::vector<std::string>& written) override {
        note("fetch " + method(kind) + " " + std::to_string(upstream), ctx);
        co_await test::suspend_once();
        json::array items{json::object{{"uri", "file:///" + std::to_string(upstream)}}};
        written.push_back(json::serialize(items.front()));
        co_return items;
    }
    void count(const std::string&, std::string_view, double) override {}
    void tool_dropped(const std::string&, std::string_view) override {}
    void share_list(list_kind, protocol::client_profile, const upstream_client&, const json::array&,
                    const std::vector<std::string>&) override {}
    boost::asio::awaitable<list_page>
    complete(list_kind kind, const actors::list_plan&, std::vector<actors::fetched_list>,
             std::optional<std::string>, request_context& ctx,
             std::shared_ptr<const actors::tool_listing>) override {
        note("complete " + method(kind), ctx);
        co_await test::suspend_once();
        co_return actors::list_answer{kind, std::make_shared<const std::string>("[]"), std::nullopt,
                                      0};
    }
};

struct call_routing : test::stage_rig {
    fake_resolver resolver;
    fake_lists services;
    list_methods lists{{services, services, services, services, services}};
    call_routes routes{resolver, resolver, lists};

    pipeline::routing named(std::string method, json::object params) {
        return finish(routes.route_named(method, json::value(7), std::move(params), ctx));
    }
    actors::routed route_to(std::size_t upstream, std::string uri) {
        return actors::routed{
            ctx.view->snap,
            actors::route{upstream, json::object{{"uri", uri}, {"upstream", "yes"}}, uri}};
    }
    actors::routed not_known_yet(std::string uri) {
        return actors::routed{ctx.view->snap, actors::unknown_uri(uri, true)};
    }
    // The refusal's error code; 0 when the routing is not a refusal.
    static int code(const pipeline::routing& r) {
        const auto* answer = std::get_if<json::object>(&r);
        const auto* e = answer ? answer->if_contains("error") : nullptr;
        return e ? static_cast<int>(e->at("code").as_int64()) : 0;
    }
    std::size_t lists_asked(std::string_view what) const {
        return std::count_if(services.asked.begin(), services.asked.end(),
                             [&](const std::string& a) { return a.starts_with(what); });
    }
};

TEST_F(call_routing, a_namespaced_tool_is_routed_at_once_with_its_params_moved) {
    json::object params{{"name", "b__echo"}, {"arguments", {{"x", 1}}}};
    auto r = routes.route_by_name("tools/call", 7, params, ctx);
    ASSERT_TRUE(r);
    auto* ok = std::get_if<actors::route>(&*r);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->upstream, 1u);
    EXPECT_EQ(ok->name, "b__echo");
    EXPECT_EQ(ok->params, (json::object{{"name", "echo"}, {"arguments", {{"x", 1}}}}));
    EXPECT_TRUE(params.empty()) << "moved into the route";
    EXPECT_TRUE(resolver.asked.empty());
    EXPECT_FALSE(ctx.answer.response);
}

TEST_F(call_routing, named_routes_a_tool_by_its_name_without_the_router) {
    auto r = named("prompts/get", {{"name", "a__greet"}});
    auto* ok = std::get_if<actors::route>(&r);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->upstream, 0u);
    EXPECT_EQ(ok->params.at("name"), "greet");
    EXPECT_TRUE(resolver.asked.empty());
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(call_routing, an_unknown_namespace_is_refused_with_the_name_noted) {
    json::object params{{"name", "zz__echo"}};
    // A tool's name no namespace owns is not decided at once: the caller's list may hold it
    // under its upstream's name (an MCP App's view calls so; docs/apps.md).
    EXPECT_FALSE(routes.route_by_name("tools/call", 7, params, ctx));
    auto r = std::optional(named("tools/call", params));
    ASSERT_TRUE(std::holds_alternative<json::object>(*r)) << "refused, not routed";
    EXPECT_EQ(code(*r), protocol::describe(gateway_error::unknown_namespace).rpc_code);
    EXPECT_EQ(std::get<json::object>(*r).at("id"), 7);
    EXPECT_EQ(ctx.name, "zz__echo");
    EXPECT_EQ(ctx.audit.outcome,
              protocol::describe(gateway_error::unknown_namespace).audit_outcome);
    EXPECT_TRUE(ctx.audit.error && ctx.audit.error->find("zz__echo") != std::string::npos);
    EXPECT_TRUE(resolver.asked.empty());
}

// On an io thread beyond the first a client is made at its first use (docs/io-threads.md):
// routing a call makes none of an upstream whose tools are listed already, for the policy may
// still refuse the call; one not listed yet is made to learn whether it must list first.
TEST_F(call_routing, a_call_makes_no_client_at_routing_when_its_tools_are_listed) {
    int made = 0;
    auto view = std::make_shared<federation_view>();
    view->snap = ctx.view->snap;
    for (const auto& u : doc->upstreams)
        view->add(std::make_shared<upstream_siblings>(u));
    view->maker = [&](const federation_view& v, std::size_t i) {
        ++made;
        return upstream_client::make(io.get_executor(), v.config(i), v.entry(i));
    };
    view->entry(1)->facts->amend([](tool_facts& f) {
        f.tools.learn(json::array{json::object{{"name", "echo"}, {"inputSchema", {}}}});
    });
    ctx.view = view;

    auto r = named("tools/call", {{"name", "b__echo"}});
    ASSERT_TRUE(std::holds_alternative<actors::route>(r));
    EXPECT_EQ(std::get<actors::route>(r).upstream, 1u);
    EXPECT_EQ(made, 0) << "listed on some thread: no list wanted, no client made";
    EXPECT_EQ(view->made(1), nullptr);

    fresh();
    ctx.view = view;
    r = named("tools/call", {{"name", "a__echo"}});
    ASSERT_TRUE(std::holds_alternative<actors::route>(r));
    EXPECT_EQ(made, 1) << "never listed: made to see whether its pin lists first";
    ASSERT_NE(view->made(0), nullptr);
    EXPECT_TRUE(services.asked.empty()) << "no pin and no policy: nothing listed";
    view->made(0)->close();
}

TEST_F(call_routing, a_method_the_names_do_not_route_is_left_with_its_params) {
    json::object params{{"uri", "file:///x"}};
    auto r = routes.route_by_name("resources/read", 7, params, ctx);
    EXPECT_FALSE(r);
    EXPECT_EQ(params, (json::object{{"uri", "file:///x"}}));
    // A completion of a resource's argument is not routed by name either.
    json::object completion{{"ref", {{"type", "ref/resource"}, {"uri", "file:///x"}}}};
    auto copy = completion;
    EXPECT_FALSE(routes.route_by_name("completion/complete", 7, completion, ctx));
    EXPECT_EQ(completion, copy);
    EXPECT_FALSE(ctx.name);
    EXPECT_FALSE(ctx.audit.error);
}

TEST_F(call_routing, a_uri_is_routed_where_the_router_says) {
    resolver.answers.push_back(route_to(1, "file:///x"));
    auto r = named("resources/read", {{"uri", "file:///x"}});
    auto* ok = std::get_if<actors::route>(&r);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->upstream, 1u);
    EXPECT_EQ(ok->params.at("upstream"), "yes") << "the router's params";
    EXPECT_EQ(resolver.asked, std::vector<std::string>{"resources/read"});
    EXPECT_EQ(resolver.params.front(), (json::object{{"uri", "file:///x"}}));
    EXPECT_EQ(resolver.contexts.front(), &ctx);
    EXPECT_TRUE(services.asked.empty()) << "no lists fetched";
}

TEST_F(call_routing, a_router_that_does_not_answer_is_an_internal_error) {
    auto r = named("resources/read", {{"uri", "file:///x"}});
    EXPECT_EQ(code(r), protocol::describe(gateway_error::internal_error).rpc_code);
    ASSERT_TRUE(ctx.audit.error);
    EXPECT_NE(ctx.audit.error->find("router unavailable"), std::string::npos) << *ctx.audit.error;
    EXPECT_EQ(resolver.asked.size(), 1u);
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(call_routing, a_router_refusal_is_passed_on_with_the_uri_noted) {
    resolver.answers.push_back(actors::routed{ctx.view->snap, actors::unknown_uri("file:///nope")});
    auto r = named("resources/read", {{"uri", "file:///nope"}});
    EXPECT_EQ(code(r), protocol::describe(gateway_error::unknown_resource).rpc_code);
    EXPECT_EQ(ctx.name, "file:///nope");
    EXPECT_EQ(resolver.asked.size(), 1u);
    EXPECT_TRUE(services.asked.empty()) << "lists are fetched only when the router asks";
}

TEST_F(call_routing, an_unknown_owner_is_learnt_from_the_resource_lists_once) {
    ctx.who.caller = std::make_shared<const principal>(principal{"alice", "https://idp", {}, {}});
    ctx.client.session = "s1";
    ctx.client.profile = 3; // the caller's own profile; gate's lists are the full one's
    ctx.audit.upstream_calls = 5;
    resolver.answers.push_back(not_known_yet("file:///0"));
    resolver.answers.push_back(route_to(0, "file:///0"));
    auto r = named("resources/read", {{"uri", "file:///0"}});

    auto* ok = std::get_if<actors::route>(&r);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->upstream, 0u);
    EXPECT_EQ(resolver.asked.size(), 2u) << "routed again after the lists";
    EXPECT_EQ(resolver.params.back(), (json::object{{"uri", "file:///0"}}));
    // Both lists, each planned, fetched from every upstream and completed, in that order.
    EXPECT_EQ(lists_asked("plan resources/list"), 1u);
    EXPECT_EQ(lists_asked("fetch resources/list "), 2u);
    EXPECT_EQ(lists_asked("complete resources/list"), 1u);
    EXPECT_EQ(lists_asked("plan resources/templates/list"), 1u);
    EXPECT_EQ(lists_asked("fetch resources/templates/list "), 2u);
    EXPECT_EQ(lists_asked("complete resources/templates/list"), 1u);
    ASSERT_EQ(services.asked.size(), 8u);
    EXPECT_EQ(services.asked.front(), "plan resources/list");
    EXPECT_EQ(services.asked.back(), "complete resources/templates/list");
    // As gate's own lists, on a side request that carries the caller.
    for (const auto& seen : services.contexts) {
        EXPECT_NE(seen.ctx, &ctx) << "a side request";
        EXPECT_EQ(seen.caller, ctx.who.caller);
        EXPECT_EQ(seen.profile, protocol::full_profile);
        EXPECT_EQ(seen.session, "s1");
    }
    EXPECT_EQ(ctx.audit.upstream_calls, 5 + 4) << "the side's four fetches counted on the caller's";
    EXPECT_EQ(ctx.client.profile, 3);
    EXPECT_FALSE(ctx.answer.response);
}

TEST_F(call_routing, an_owner_still_unknown_after_the_lists_is_refused) {
    resolver.answers.push_back(not_known_yet("file:///9"));
    resolver.answers.push_back(not_known_yet("file:///9"));
    resolver.answers.push_back(route_to(0, "file:///9")); // never asked for
    auto r = named("resources/read", {{"uri", "file:///9"}});
    ASSERT_TRUE(std::holds_alternative<json::object>(r)) << "refused, not routed";
    EXPECT_EQ(code(r), protocol::describe(gateway_error::unknown_resource).rpc_code);
    EXPECT_EQ(std::get<json::object>(r).at("id"), 7);
    EXPECT_EQ(ctx.name, "file:///9");
    ASSERT_TRUE(ctx.audit.error);
    EXPECT_NE(ctx.audit.error->find("file:///9"), std::string::npos);
    EXPECT_EQ(resolver.asked.size(), 2u) << "no third resolve";
    EXPECT_EQ(lists_asked("plan "), 2u) << "the lists fetched once";
    EXPECT_EQ(ctx.audit.upstream_calls, 4);
}

TEST_F(call_routing, a_short_alias_the_router_cannot_reverse_yet_is_routed_after_the_tools_list) {
    doc->routing.max_name_length = 16;
    load();
    const std::string alias = "a__long-0123abcd"; // 16 characters of the alias shape
    json::object params{{"name", alias}};
    EXPECT_FALSE(routes.route_by_name("prompts/get", 7, params, ctx)) << "the router's to reverse";
    EXPECT_EQ(params.at("name").as_string(), alias);
    // The router says when it needs the lists (actors/federation/name_aliases.cpp).
    actors::route_error unknown{gateway_error::upstream_unreachable, "not listed yet", alias, false,
                                true};
    resolver.answers.push_back(actors::routed{ctx.view->snap, unknown});
    resolver.answers.push_back(actors::routed{
        ctx.view->snap, actors::route{0, json::object{{"name", "long_tool_name"}}, alias}});
    // A prompt's alias: the prompts list is learnt, not the tools list.
    auto r = finish(routes.route_named("prompts/get", json::value(7), std::move(params), ctx));
    auto* ok = std::get_if<actors::route>(&r);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->params.at("name"), "long_tool_name");
    EXPECT_EQ(resolver.asked.size(), 2u);
    EXPECT_EQ(lists_asked("plan prompts/list"), 1u);
    EXPECT_EQ(lists_asked("plan tools/list"), 0u);
    EXPECT_EQ(lists_asked("plan resources/"), 0u);
}

TEST_F(call_routing, an_alias_still_not_reversed_after_the_lists_is_refused_saying_why) {
    doc->routing.max_name_length = 16;
    load();
    const std::string alias = "a__long-0123abcd";
    actors::route_error unknown{gateway_error::upstream_unreachable, "could not fetch", alias,
                                false, true};
    resolver.answers.push_back(actors::routed{ctx.view->snap, unknown});
    resolver.answers.push_back(actors::routed{ctx.view->snap, unknown});
    auto r = finish(routes.route_named("prompts/get", json::value(7), {{"name", alias}}, ctx));
    EXPECT_EQ(code(r), protocol::describe(gateway_error::upstream_unreachable).rpc_code);
    ASSERT_TRUE(ctx.audit.error);
    EXPECT_NE(ctx.audit.error->find("could not fetch"), std::string::npos);
    EXPECT_EQ(resolver.asked.size(), 2u);
    EXPECT_EQ(lists_asked("plan prompts/list"), 1u) << "learnt once";
}

// Alice may call echo on up-b; with `conditions` only with a message, a decision that reads
// the call's arguments (the memo does not keep it: each call walks the rules).
struct routed_call_policy : call_routing {
    std::unique_ptr<pipeline::stage> authorize = pipeline::make_authorize("", nullptr);

    void alice_may_echo(bool conditions) {
        config::rule r;
        r.id = "alice";
        r.subjects = config::subjects{};
        r.subjects->subs = {"alice"};
        config::grant echo{"up-b", {"tools/call"}, {"echo"}};
        if (conditions) {
            config::argument_condition message;
            message.pointer = "/message";
            message.present = true;
            echo.arguments.push_back(message);
        }
        r.allow.push_back(echo);
        config::policy p;
        p.rules.push_back(r);
        doc->policy = p;
        load();
    }
    // A tools/call of b__echo by alice routed (stage 4) and authorized (stage 5) as the chain
    // runs them: the walks of the rules each stage cost.
    std::pair<std::uint64_t, std::uint64_t> walks_of_a_call() {
        auto view = ctx.view;
        ctx = request_context{};
        ctx.view = view; // one snapshot, one engine, as requests between reloads share
        ctx.who.caller = std::make_shared<const principal>(principal{"alice", "idp", {}, {}});
        ctx.method = "tools/call";
        ctx.message.id = 7;
        json::object params{{"name", "b__echo"}, {"arguments", {{"message", "hi"}}}};
        auto start = policy::policy_engine::walks_on_this_thread();
        auto r = routes.route_by_name("tools/call", 7, params, ctx);
        auto routed_at = policy::policy_engine::walks_on_this_thread();
        EXPECT_TRUE(r && std::holds_alternative<actors::route>(*r)) << "routed at once";
        if (!r || !std::holds_alternative<actors::route>(*r))
            return {routed_at - start, 0};
        ctx.routed.target = std::get<actors::route>(std::move(*r));
        ctx.name = ctx.routed.target->name;
        EXPECT_EQ(drive(authorize->run(ctx)).verdict, pipeline::verdict::proceed);
        EXPECT_EQ(ctx.policy.decision, "allow");
        return {routed_at - start, policy::policy_engine::walks_on_this_thread() - routed_at};
    }
};

TEST_F(routed_call_policy, a_decision_on_arguments_walks_the_rules_once_per_call) {
    alice_may_echo(true);
    for (int call = 0; call < 3; ++call) {
        auto [routing, authorizing] = walks_of_a_call();
        EXPECT_EQ(routing, 0u) << "call " << call << ": routing decides nothing";
        EXPECT_EQ(authorizing, 1u) << "call " << call;
    }
}

TEST_F(routed_call_policy, a_remembered_decision_walks_the_rules_at_the_first_call_only) {
    alice_may_echo(false);
    auto first = walks_of_a_call();
    EXPECT_EQ(first, (std::pair<std::uint64_t, std::uint64_t>{0, 1}));
    auto second = walks_of_a_call();
    EXPECT_EQ(second, (std::pair<std::uint64_t, std::uint64_t>{0, 0})) << "stage 5's memo";
}

} // namespace
} // namespace gate::gateway
