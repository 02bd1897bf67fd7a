// Stage 7, proxy, with fakes of its services (gateway/pipeline/s7_proxy.hpp): each kind of
// request goes to the service that serves it with what the earlier stages decided (the
// route's params, stage 6's admission, the list's plan and tickets), an upstream failure is
// answered with its row, and what the stage cannot proxy passes on untouched.
#include "gateway/pipeline/client_answer.hpp"
#include "gateway/pipeline/s7_proxy.hpp"
#include "tests/unit/stage_rig.hpp"

#include <boost/json/parse.hpp>
#include <string>
#include <vector>

namespace gate::gateway::pipeline {
namespace {

namespace json = boost::json;

// Answers as told and keeps what it was handed.
struct fake_proxy final : call_stage_services,
                          list_stage_services,
                          log_level_services,
                          task_stage_services,
                          subscription_stage_services {
    using ticket = call_ticket;
    std::vector<std::string> asked; // "<service> <method>"
    // What it was handed.
    std::size_t upstream = 99;
    std::string method, session;
    json::value id;
    json::object params;
    ticket admitted;
    std::vector<ticket> tickets;
    const actors::list_plan* plan = nullptr;
    const actors::route* target = nullptr;
    std::string* version = nullptr;
    // What it answers.
    upstream_reply reply = upstream_message::of_text(R"({"jsonrpc":"2.0","id":3,"result":{}})");
    json::object answer{{"jsonrpc", "2.0"}, {"id", 7}, {"result", json::object{}}};
    std::vector<actors::fetched_list> fetched{{1, json::array{1, 2}}};

    // As the real one (gateway/mcp/upstream_calls) takes its call from ctx and keeps the reply.
    boost::asio::awaitable<verdict> call_routed(request_context& ctx) override {
        asked.push_back("call " + ctx.method);
        upstream = ctx.routed.target->upstream;
        params = std::move(ctx.routed.target->params);
        admitted = std::move(ctx.guards.admitted);
        co_await test::suspend_once();
        keep_reply(ctx, reply);
        co_return verdict::proceed;
    }
    boost::asio::awaitable<std::vector<actors::fetched_list>>
    fetch_lists(protocol::list_kind kind, const actors::list_plan& p, std::vector<ticket> t,
                request_context&) override {
        asked.push_back("fetch " + std::string(protocol::traits(kind).method));
        plan = &p;
        tickets = std::move(t);
        co_await test::suspend_once();
        co_return fetched;
    }
    boost::asio::awaitable<json::object> initialize(const json::value& i, const json::object& p,
                                                    std::string& v, request_context&) override {
        asked.push_back("initialize");
        id = i;
        params = p;
        version = &v;
        v = "2025-11-25";
        co_return answer;
    }
    boost::asio::awaitable<json::object> set_log_level(const std::string& s, const json::value& i,
                                                       const json::object& p,
                                                       request_context&) override {
        asked.push_back("set_log_level");
        session = s;
        id = i;
        params = p;
        co_return answer;
    }
    boost::asio::awaitable<json::object> task_call(const json::value& i, const std::string& m,
                                                   json::object p, request_context&) override {
        asked.push_back("task_call " + m);
        id = i;
        params = std::move(p);
        co_return answer;
    }
    boost::asio::awaitable<json::object> subscribe_at_modern_upstream(const std::string& m,
                                                                      const json::value& i,
                                                                      const actors::route& t,
                                                                      request_context&) override {
        asked.push_back("subscribe_at_modern_upstream " + m);
        id = i;
        target = &t;
        co_return answer;
    }
    // Stage 8's alone (egress).
    boost::asio::awaitable<json::object>
    complete_list(protocol::list_kind, const actors::list_plan&, std::vector<actors::fetched_list>,
                  const json::value&, const json::object&, request_context&) override {
        ADD_FAILURE() << "stage 7 completed a list";
        co_return answer;
    }
    boost::asio::awaitable<json::object> answer_gate_tool(protocol::gate_tool,
                                                          const actors::list_plan&,
                                                          std::vector<actors::fetched_list>,
                                                          const json::value&, const json::object&,
                                                          request_context&) override {
        ADD_FAILURE() << "stage 7 answered a tool of gate's own";
        co_return answer;
    }
    boost::asio::awaitable<void> pin_task(const request_context&, std::size_t,
                                          std::string) override {
        ADD_FAILURE() << "stage 7 pinned a task";
        co_return;
    }
    void record_subscription(const request_context&, const std::string&, bool) override {
        ADD_FAILURE() << "stage 7 recorded a subscription";
    }
};

struct stage_proxy : test::stage_rig {
    fake_proxy services;
    std::unique_ptr<stage> proxy = make_proxy({services, services, services, services, services});
    std::vector<std::unique_ptr<upstream_guards>> guards; // what the test's tickets admit to

    void request(std::string method, json::object params = {}) {
        ctx.method = std::move(method);
        ctx.message.id = 7;
        ctx.client.session = "s-1";
        ctx.message.params = std::move(params);
    }
    // As stages 4 and 6 leave a call routed to `upstream` and admitted there.
    void routed(std::size_t upstream, json::object params) {
        ctx.routed.target = actors::route{upstream, std::move(params), "b__echo"};
        ctx.upstream = doc->upstreams[upstream].id;
        ctx.guards.admitted = ticket_at(upstream);
    }
    call_ticket ticket_at(std::size_t upstream) {
        guards.push_back(std::make_unique<upstream_guards>(doc->upstreams[upstream]));
        return std::make_shared<upstream_client::guard_ticket>(*guards.back());
    }
    ran run() { return drive(proxy->run(ctx)); }
};

TEST_F(stage_proxy, is_the_proxy_stage) {
    EXPECT_EQ(proxy->id(), gateway::stage::proxy);
}

TEST_F(stage_proxy, a_routed_call_goes_to_its_upstream_with_its_admission) {
    request("tools/call", {{"name", "b__echo"}});
    routed(1, {{"name", "echo"}});
    auto admitted = ctx.guards.admitted.get();
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_EQ(services.asked, std::vector<std::string>{"call tools/call"});
    EXPECT_EQ(services.upstream, 1u);
    EXPECT_EQ(services.params, (json::object{{"name", "echo"}})) << "the route's params";
    EXPECT_EQ(services.admitted.get(), admitted) << "stage 6's admission, handed on";
    EXPECT_FALSE(ctx.guards.admitted);
    ASSERT_TRUE(ctx.proxied.upstream_answer);
    EXPECT_EQ(ctx.proxied.upstream_answer->raw(), R"({"jsonrpc":"2.0","id":3,"result":{}})");
    EXPECT_FALSE(ctx.answer.response) << "egress makes the answer";
}

TEST_F(stage_proxy, a_method_gate_does_not_know_is_passed_through_to_its_upstream) {
    request("vendor/frobnicate", {{"x", 1}});
    routed(0, {{"x", 1}});
    EXPECT_EQ(run().verdict, verdict::proceed);
    EXPECT_EQ(services.asked, std::vector<std::string>{"call vendor/frobnicate"});
    EXPECT_EQ(services.upstream, 0u);
    EXPECT_EQ(services.params, (json::object{{"x", 1}}));
    EXPECT_TRUE(ctx.proxied.upstream_answer);
}

TEST_F(stage_proxy, an_upstream_that_fails_is_answered_with_its_row) {
    request("tools/call");
    routed(1, {});
    services.reply = upstream_failure{upstream_failure::kind::rate_limited, "slow down", 0,
                                      std::nullopt, std::chrono::milliseconds(1500)};
    EXPECT_EQ(run().verdict, verdict::proceed) << "egress settles the answer";
    EXPECT_FALSE(ctx.proxied.upstream_answer);
    ASSERT_TRUE(ctx.answer.response);
    const auto& row = protocol::describe(protocol::gateway_error::upstream_rate_limited);
    EXPECT_EQ(ctx.answer.response->at("id"), 7);
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), row.rpc_code);
    EXPECT_EQ(ctx.answer.response->at("error").at("data").at("upstream"), "up-b");
    EXPECT_EQ(ctx.answer.response->at("error").at("data").at("retryAfterMs"), 1500);
    EXPECT_EQ(ctx.audit.outcome, row.audit_outcome);
    EXPECT_EQ(ctx.audit.error, "slow down");
}

TEST_F(stage_proxy, an_unreachable_upstream_is_answered_unreachable) {
    request("prompts/get");
    routed(0, {});
    services.reply =
        upstream_failure{upstream_failure::kind::connect_error, "refused", 0, std::nullopt};
    run();
    const auto& row = protocol::describe(protocol::gateway_error::upstream_unreachable);
    ASSERT_TRUE(ctx.answer.response);
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), row.rpc_code);
    EXPECT_EQ(ctx.audit.outcome, row.audit_outcome);
}

TEST_F(stage_proxy, a_list_fetches_its_plan_with_its_tickets) {
    request("prompts/list");
    ctx.routed.plan = actors::list_plan{};
    ctx.routed.plan->fetch = {0, 1};
    ctx.guards.list_admitted = {ticket_at(0), nullptr};
    auto first = ctx.guards.list_admitted[0].get();
    EXPECT_EQ(run().verdict, verdict::proceed);
    EXPECT_EQ(services.asked, std::vector<std::string>{"fetch prompts/list"});
    EXPECT_EQ(services.plan, &*ctx.routed.plan) << "the plan stage 4 made";
    ASSERT_EQ(services.tickets.size(), 2u);
    EXPECT_EQ(services.tickets[0].get(), first);
    EXPECT_FALSE(services.tickets[1]) << "refused at stage 6: left out";
    ASSERT_EQ(ctx.proxied.fetched.size(), 1u);
    EXPECT_EQ(ctx.proxied.fetched[0].upstream, 1u);
    EXPECT_EQ(ctx.proxied.fetched[0].items, (json::array{1, 2}));
    EXPECT_FALSE(ctx.answer.response) << "egress completes the list";
}

TEST_F(stage_proxy, initialize_is_answered_with_the_revision_agreed) {
    request("initialize", {{"protocolVersion", "2025-11-25"}});
    EXPECT_EQ(run().verdict, verdict::proceed);
    EXPECT_EQ(services.asked, std::vector<std::string>{"initialize"});
    EXPECT_EQ(services.id, 7);
    EXPECT_EQ(services.params, (json::object{{"protocolVersion", "2025-11-25"}}));
    EXPECT_EQ(services.version, &ctx.proxied.negotiated_version);
    EXPECT_EQ(ctx.proxied.negotiated_version, "2025-11-25");
    EXPECT_EQ(ctx.answer.response, services.answer);
}

TEST_F(stage_proxy, set_level_reaches_the_clients_sessions) {
    request("logging/setLevel", {{"level", "debug"}});
    run();
    EXPECT_EQ(services.asked, std::vector<std::string>{"set_log_level"});
    EXPECT_EQ(services.session, "s-1");
    EXPECT_EQ(services.id, 7);
    EXPECT_EQ(services.params, (json::object{{"level", "debug"}}));
    EXPECT_EQ(ctx.answer.response, services.answer);
}

TEST_F(stage_proxy, a_task_method_goes_to_the_tasks_owner) {
    for (auto m : {"tasks/get", "tasks/result", "tasks/cancel", "tasks/list"}) {
        services.asked.clear();
        fresh();
        request(m, {{"taskId", "t-1"}});
        EXPECT_EQ(run().verdict, verdict::proceed);
        EXPECT_EQ(services.asked, std::vector<std::string>{std::string("task_call ") + m});
        EXPECT_EQ(services.params, (json::object{{"taskId", "t-1"}}));
        EXPECT_EQ(ctx.answer.response, services.answer);
    }
}

TEST_F(stage_proxy, a_subscription_at_a_session_era_upstream_is_its_own_call) {
    request("resources/subscribe", {{"uri", "file:///x"}});
    routed(1, {{"uri", "file:///x"}});
    run();
    EXPECT_EQ(services.asked, std::vector<std::string>{"call resources/subscribe"});
}

struct stage_proxy_modern : stage_proxy {
    void SetUp() override {
        doc->upstreams[1].protocol = config::protocol_mode::v2026_07_28;
        load();
    }
};

TEST_F(stage_proxy_modern, a_subscription_at_a_2026_upstream_is_held_by_gate) {
    for (auto m : {"resources/subscribe", "resources/unsubscribe"}) {
        services.asked.clear();
        fresh();
        request(m, {{"uri", "file:///x"}});
        routed(1, {{"uri", "file:///x"}});
        ctx.guards.through_listen = true; // stage 6 found it held in gate's listen
        EXPECT_EQ(run().verdict, verdict::proceed);
        EXPECT_EQ(services.asked,
                  std::vector<std::string>{std::string("subscribe_at_modern_upstream ") + m});
        EXPECT_EQ(services.target, &*ctx.routed.target);
        EXPECT_EQ(services.id, 7);
        EXPECT_EQ(ctx.answer.response, services.answer);
        EXPECT_FALSE(ctx.proxied.upstream_answer);
    }
}

TEST_F(stage_proxy_modern, any_other_call_there_is_sent_as_it_is) {
    request("resources/read", {{"uri", "file:///x"}});
    routed(1, {{"uri", "file:///x"}});
    run();
    EXPECT_EQ(services.asked, std::vector<std::string>{"call resources/read"});
}

TEST_F(stage_proxy, a_request_with_nothing_to_proxy_goes_on_untouched) {
    request("tools/call");
    EXPECT_EQ(run().verdict, verdict::proceed);
    EXPECT_TRUE(services.asked.empty());
    EXPECT_FALSE(ctx.answer.response);
    EXPECT_FALSE(ctx.proxied.upstream_answer);
}

} // namespace
} // namespace gate::gateway::pipeline
