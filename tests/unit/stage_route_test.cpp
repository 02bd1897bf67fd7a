// Stage 4, route, with fakes of its services (gateway/pipeline/s4_route.hpp): ping answered
// here, the methods routed later let through, a list planned (or refused when the router does
// not answer), a named call routed by its name at once or by the resource router, a refusal
// passed on, and an upstream the caller's tenant does not see answered like an unknown one.
#include "gateway/pipeline/s4_route.hpp"
#include "tests/unit/stage_rig.hpp"

#include <string>
#include <vector>

namespace gate::gateway::pipeline {
namespace {

namespace json = boost::json;

// Answers as told and notes what it was asked.
struct fake_routes final : route_services {
    std::optional<routing> by_name;        // route_by_name's decision (nullopt: not by name)
    routing named = json::object{};        // route_named's answer
    std::optional<actors::list_plan> plan; // plan_list's answer
    std::vector<std::string> asked; // "by_name <method>", "named <method>", "plan <list method>"
    json::object named_params;      // what route_named was handed
    json::value named_id;

    std::optional<routing> route_by_name(const std::string& method, const json::value&,
                                         json::object& params, request_context&) override {
        asked.push_back("by_name " + method);
        if (by_name && std::holds_alternative<actors::route>(*by_name))
            std::get<actors::route>(*by_name).params = std::move(params); // moved into the route
        return by_name;
    }
    boost::asio::awaitable<routing> route_named(const std::string& method, const json::value& id,
                                                json::object params, request_context&) override {
        asked.push_back("named " + method);
        named_params = std::move(params);
        named_id = id;
        co_await test::suspend_once();
        co_return named;
    }
    boost::asio::awaitable<std::optional<actors::list_plan>> plan_list(protocol::list_kind kind,
                                                                       request_context&) override {
        asked.push_back("plan " + std::string(protocol::traits(kind).method));
        co_await test::suspend_once();
        co_return plan;
    }
};

struct stage_route : test::stage_rig {
    fake_routes services;
    std::unique_ptr<stage> route_stage = make_route(services);

    ran run(std::string method, json::object params = {}) {
        ctx.method = std::move(method);
        ctx.message.id = 7;
        ctx.message.params = std::move(params);
        return drive(route_stage->run(ctx));
    }
    // The answer's error code; 0 when there is none.
    int code() const {
        const auto* e = ctx.answer.response ? ctx.answer.response->if_contains("error") : nullptr;
        return e ? static_cast<int>(e->at("code").as_int64()) : 0;
    }
};

TEST_F(stage_route, is_the_route_stage) {
    EXPECT_EQ(route_stage->id(), gateway::stage::route);
}

TEST_F(stage_route, ping_is_answered_here_at_once) {
    auto r = run("ping");
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_TRUE(r.at_once);
    ASSERT_TRUE(ctx.answer.response);
    EXPECT_EQ(ctx.answer.response->at("id"), 7);
    EXPECT_EQ(ctx.answer.response->at("result"), json::object{});
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(stage_route, initialize_set_level_and_task_methods_go_on_unrouted) {
    for (auto m : {"initialize", "logging/setLevel", "tasks/get", "tasks/list"}) {
        fresh();
        auto r = run(m, {{"x", 1}});
        EXPECT_EQ(r.verdict, verdict::proceed) << m;
        EXPECT_TRUE(r.at_once) << m;
        EXPECT_FALSE(ctx.routed.target) << m;
        EXPECT_FALSE(ctx.answer.response) << m;
        EXPECT_EQ(ctx.message.params, (json::object{{"x", 1}})) << m << ": left for the proxy";
    }
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(stage_route, a_list_is_planned_for_the_proxy) {
    actors::list_plan plan;
    plan.fetch = {1};
    services.plan = plan;
    auto r = run("resources/list");
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_FALSE(r.at_once);
    EXPECT_EQ(services.asked, std::vector<std::string>{"plan resources/list"});
    ASSERT_TRUE(ctx.routed.plan);
    EXPECT_EQ(ctx.routed.plan->fetch, std::vector<std::size_t>{1});
    EXPECT_FALSE(ctx.answer.response);
}

TEST_F(stage_route, a_list_the_router_does_not_plan_is_an_internal_error) {
    auto r = run("tools/list");
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_FALSE(ctx.routed.plan);
    ASSERT_TRUE(ctx.answer.response);
    const auto& row = protocol::describe(protocol::gateway_error::internal_error);
    EXPECT_EQ(code(), row.rpc_code);
    EXPECT_EQ(ctx.audit.outcome, row.audit_outcome);
    EXPECT_NE(ctx.audit.error.value_or("").find("router unavailable"), std::string::npos);
}

TEST_F(stage_route, a_call_routed_by_its_name_goes_on_at_once_to_its_upstream) {
    services.by_name = actors::route{1, {}, "b__echo"};
    auto r = run("tools/call", {{"name", "echo"}});
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    EXPECT_EQ(services.asked, std::vector<std::string>{"by_name tools/call"});
    ASSERT_TRUE(ctx.routed.target);
    EXPECT_EQ(ctx.routed.target->upstream, 1u);
    EXPECT_EQ(ctx.routed.target->params, (json::object{{"name", "echo"}}));
    EXPECT_EQ(ctx.upstream, "up-b");
    EXPECT_EQ(ctx.name, "b__echo");
    EXPECT_FALSE(ctx.answer.response);
}

TEST_F(stage_route, a_refusal_by_name_is_the_answer) {
    // What the gateway answers an unknown namespace with (its outcome set by the service).
    json::object refused{{"jsonrpc", "2.0"}, {"id", 7}, {"error", {{"code", -32043}}}};
    services.by_name = refused;
    auto r = run("tools/call", {{"name", "zz__echo"}});
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_TRUE(r.at_once);
    EXPECT_EQ(ctx.answer.response, refused);
    EXPECT_FALSE(ctx.routed.target);
    EXPECT_FALSE(ctx.upstream);
}

TEST_F(stage_route, a_uri_is_routed_by_the_resource_router) {
    services.named = actors::route{0, {{"uri", "file:///x"}}, "file:///x"};
    auto r = run("resources/read", {{"uri", "file:///x"}});
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_FALSE(r.at_once);
    EXPECT_EQ(services.asked,
              (std::vector<std::string>{"by_name resources/read", "named resources/read"}));
    EXPECT_EQ(services.named_params, (json::object{{"uri", "file:///x"}}));
    EXPECT_EQ(services.named_id, 7);
    ASSERT_TRUE(ctx.routed.target);
    EXPECT_EQ(ctx.routed.target->upstream, 0u);
    EXPECT_EQ(ctx.upstream, "up-a");
    EXPECT_EQ(ctx.name, "file:///x");
}

TEST_F(stage_route, a_uri_no_upstream_owns_is_answered_with_the_routers_refusal) {
    json::object refused{{"jsonrpc", "2.0"}, {"id", 7}, {"error", {{"code", -32002}}}};
    services.named = refused;
    auto r = run("resources/subscribe", {{"uri", "file:///nobody"}});
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_EQ(ctx.answer.response, refused);
    EXPECT_FALSE(ctx.routed.target);
}

TEST_F(stage_route, a_route_without_a_name_leaves_the_name_unset) {
    services.named = actors::route{0, {}, ""};
    auto r = run("resources/templates/read");
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_FALSE(ctx.name);
    EXPECT_EQ(ctx.upstream, "up-a");
}

// tenants[].upstreams is applied before policy: an upstream the tenant does not see answers
// like one that is not configured.
struct stage_route_tenant : stage_route {
    void SetUp() override {
        config::tenant t;
        t.id = "acme";
        t.upstreams = std::vector<std::string>{"up-a"};
        doc->tenants.push_back(t);
        load();
        ctx.who.tenant = "acme";
        ctx.who.tenant_index = 0;
    }
};

TEST_F(stage_route_tenant, an_upstream_the_tenant_sees_is_routed) {
    services.by_name = actors::route{0, {}, "a__echo"};
    EXPECT_EQ(run("tools/call").verdict, verdict::proceed);
    EXPECT_EQ(ctx.upstream, "up-a");
}

TEST_F(stage_route_tenant, a_name_at_a_hidden_upstream_is_an_unknown_namespace) {
    services.by_name = actors::route{1, {}, "b__echo"};
    auto r = run("tools/call", {{"name", "echo"}});
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_TRUE(r.at_once);
    EXPECT_EQ(code(), protocol::describe(protocol::gateway_error::unknown_namespace).rpc_code);
    ASSERT_TRUE(ctx.answer.response);
    EXPECT_NE(
        std::string(ctx.answer.response->at("error").at("message").as_string()).find("b__echo"),
        std::string::npos);
    EXPECT_EQ(ctx.name, "b__echo") << "audited under the name the client sent";
    EXPECT_FALSE(ctx.routed.target);
    EXPECT_FALSE(ctx.upstream);
}

TEST_F(stage_route_tenant, a_completion_of_a_hidden_prompt_is_an_unknown_namespace) {
    services.by_name = actors::route{1, {}, "b__p"};
    run("completion/complete", {{"ref", {{"type", "ref/prompt"}, {"name", "p"}}}});
    EXPECT_EQ(code(), protocol::describe(protocol::gateway_error::unknown_namespace).rpc_code);
}

TEST_F(stage_route_tenant, a_uri_at_a_hidden_upstream_is_owned_by_nobody) {
    services.named = actors::route{1, {{"uri", "file:///b"}}, "file:///b"};
    auto r = run("resources/read", {{"uri", "file:///b"}});
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_EQ(code(), protocol::describe(protocol::gateway_error::unknown_resource).rpc_code);
    EXPECT_EQ(ctx.name, "file:///b");
    EXPECT_FALSE(ctx.routed.target);
}

} // namespace
} // namespace gate::gateway::pipeline
