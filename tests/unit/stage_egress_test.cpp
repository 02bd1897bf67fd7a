// Stage 8, egress, with fakes of its services (gateway/pipeline/s8_egress.hpp): an upstream's
// answer passed on with the client's id (a minted task pinned first), a list completed, a
// session opened and published for an accepted initialize, a subscription recorded, a
// 2026-07-28 client's result amended, and a request left with no answer refused.
#include "gateway/pipeline/s8_egress.hpp"
#include "tests/unit/stage_rig.hpp"

#include <boost/json/parse.hpp>
#include <string>
#include <vector>

namespace gate::gateway::pipeline {
namespace {

namespace json = boost::json;

// Answers as told and keeps what it was handed, in order.
struct fake_egress final : list_stage_services,
                           task_stage_services,
                           icon_rewriter,
                           subscription_stage_services,
                           session_opener,
                           session_publisher {
    std::vector<std::string> asked; // "<service> <argument>"
    // What it was handed.
    const actors::list_plan* plan = nullptr;
    std::vector<actors::fetched_list> fetched;
    std::string session;
    json::value id;
    json::object params, capabilities;
    std::size_t upstream = 99;
    std::string version, owner;
    // What it answers.
    json::object list_answer{{"jsonrpc", "2.0"}, {"id", 7}, {"result", {{"tools", json::array{}}}}};
    std::optional<std::string> opened = "session-1";

    boost::asio::awaitable<json::object>
    complete_list(protocol::list_kind kind, const actors::list_plan& p,
                  std::vector<actors::fetched_list> f, const json::value& i,
                  const json::object& prm, request_context&) override {
        return answered("complete_list " + std::string(protocol::traits(kind).method), p,
                        std::move(f), i, prm);
    }
    boost::asio::awaitable<json::object>
    answer_gate_tool(protocol::gate_tool tool, const actors::list_plan& p,
                     std::vector<actors::fetched_list> f, const json::value& i,
                     const json::object& prm, request_context&) override {
        return answered(std::string("answer_gate_tool ") +
                            (tool == protocol::gate_tool::search ? "search" : "select"),
                        p, std::move(f), i, prm);
    }
    // What a list's completion (or a call of gate's tools) was given, then the list answer.
    boost::asio::awaitable<json::object> answered(std::string what, const actors::list_plan& p,
                                                  std::vector<actors::fetched_list> f,
                                                  const json::value& i, const json::object& prm) {
        asked.push_back(std::move(what));
        plan = &p;
        fetched = std::move(f);
        id = i;
        params = prm;
        co_await test::suspend_once();
        co_return list_answer;
    }
    boost::asio::awaitable<void> pin_task(const request_context& ctx, std::size_t u,
                                          std::string task_id) override {
        asked.push_back("pin_task " + task_id);
        upstream = u;
        EXPECT_TRUE(ctx.answer.verbatim.empty()) << "pinned before the client hears of the task";
        co_await test::suspend_once();
    }
    void rewrite_icons(const actors::snapshot&, std::size_t upstream, std::string_view,
                       json::array& items) override {
        asked.push_back("rewrite_icons " + std::to_string(upstream));
        for (auto& item : items)
            if (auto* o = item.if_object(); o && o->contains("icons"))
                (*o)["icons"] = json::array{json::object{{"src", "https://gate/icons/x"}}};
    }
    void record_subscription(const request_context&, const std::string& uri,
                             bool subscribed) override {
        asked.push_back(std::string(subscribed ? "subscribed " : "unsubscribed ") + uri);
    }
    std::optional<std::string> open_session(request_context&, const json::object& caps) override {
        asked.push_back("open_session");
        capabilities = caps;
        return opened;
    }
    boost::asio::awaitable<void> publish_session(const std::string& s, const std::string& v,
                                                 const json::object& caps,
                                                 const std::string& o) override {
        asked.push_back("publish_session " + s);
        version = v;
        owner = o;
        EXPECT_EQ(caps, capabilities);
        co_await test::suspend_once();
    }
    // Stage 7's alone (proxy).
    boost::asio::awaitable<std::vector<actors::fetched_list>>
    fetch_lists(protocol::list_kind, const actors::list_plan&, std::vector<call_ticket>,
                request_context&) override {
        ADD_FAILURE() << "stage 8 fetched lists";
        co_return std::vector<actors::fetched_list>{};
    }
    boost::asio::awaitable<json::object> task_call(const json::value&, const std::string&,
                                                   json::object, request_context&) override {
        ADD_FAILURE() << "stage 8 ran a task method";
        co_return json::object{};
    }
    boost::asio::awaitable<json::object> subscribe_at_modern_upstream(const std::string&,
                                                                      const json::value&,
                                                                      const actors::route&,
                                                                      request_context&) override {
        ADD_FAILURE() << "stage 8 subscribed";
        co_return json::object{};
    }
};

struct stage_egress : test::stage_rig {
    fake_egress services;
    std::unique_ptr<stage> egress =
        make_egress({services, services, services, services, services, services}, nullptr);

    void request(std::string method, json::object params = {}) {
        ctx.method = std::move(method);
        ctx.message.id = 7;
        ctx.client.session = "s-1";
        ctx.message.params = std::move(params);
    }
    // As stage 7 leaves a call its upstream (up-b) answered with `text`.
    void answered_upstream(std::string_view text) {
        ctx.routed.target = actors::route{1, {}, "b__echo"};
        ctx.upstream = "up-b";
        ctx.name = "b__echo";
        ctx.proxied.upstream_answer = upstream_message::of_text(std::string(text));
    }
    ran run() { return drive(egress->run(ctx)); }
};

TEST_F(stage_egress, is_the_egress_stage) {
    EXPECT_EQ(egress->id(), gateway::stage::egress);
}

TEST_F(stage_egress, an_upstreams_answer_goes_back_verbatim_under_the_clients_id_at_once) {
    request("tools/call");
    answered_upstream(
        R"({"jsonrpc":"2.0","id":31,"result":{"content":[],"_meta":{"usage":{"in":5}}}})");
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    EXPECT_TRUE(services.asked.empty());
    EXPECT_EQ(ctx.answer.verbatim,
              R"({"jsonrpc":"2.0","id":7,"result":{"content":[],"_meta":{"usage":{"in":5}}}})");
    ASSERT_TRUE(ctx.answer.response);
    // Read for its outcome alone: a result stands in as nothing, and nothing was made for it.
    EXPECT_TRUE(ctx.answer.response->empty());
    EXPECT_EQ(ctx.audit.usage, R"({"in":5})");
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::ok);
    EXPECT_FALSE(ctx.audit.error);
}

TEST_F(stage_egress, a_calls_resource_links_carry_their_icons_from_gates_origin) {
    request("tools/call");
    answered_upstream(R"({"jsonrpc":"2.0","id":31,"result":{"content":[{"type":"text","text":"x"},)"
                      R"({"type":"resource_link","uri":"file:///a","name":"a","size":1.50,)"
                      R"("icons":[{"src":"http://up/i.png"}]}]}})");
    EXPECT_TRUE(run().at_once);
    EXPECT_EQ(services.asked, std::vector<std::string>{"rewrite_icons 1"});
    // Written again from the rewritten answer, the upstream's numbers as it wrote them.
    EXPECT_EQ(ctx.answer.verbatim,
              R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"x"},)"
              R"({"type":"resource_link","uri":"file:///a","name":"a","size":1.50,)"
              R"("icons":[{"src":"https://gate/icons/x"}]}]}})");
    services.asked.clear();
    fresh();
    request("tools/call");
    answered_upstream(R"({"jsonrpc":"2.0","id":31,"result":{"content":[{"type":"text"}]}})");
    EXPECT_TRUE(run().at_once);
    EXPECT_TRUE(services.asked.empty()); // nothing to rewrite: nothing asked, nothing written
}

TEST_F(stage_egress, an_upstreams_error_is_the_calls_error) {
    request("tools/call");
    answered_upstream(R"({"jsonrpc":"2.0","id":31,"error":{"code":-32602,"message":"bad"}})");
    run();
    EXPECT_EQ(ctx.answer.verbatim,
              R"({"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}})");
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::error);
    EXPECT_EQ(ctx.audit.error, "bad");
}

TEST_F(stage_egress, an_answer_an_earlier_stage_made_keeps_its_outcome) {
    request("tools/call");
    ctx.answer.response =
        json::object{{"jsonrpc", "2.0"}, {"id", 7}, {"error", {{"code", -32042}}}};
    ctx.audit.outcome = protocol::outcome::denied;
    auto r = run();
    EXPECT_TRUE(r.at_once);
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::denied);
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(stage_egress, a_request_left_without_an_answer_is_an_internal_error) {
    request("tools/call");
    EXPECT_EQ(run().verdict, verdict::proceed);
    ASSERT_TRUE(ctx.answer.response);
    const auto& row = protocol::describe(protocol::gateway_error::internal_error);
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), row.rpc_code);
    EXPECT_EQ(ctx.audit.outcome, row.audit_outcome);
    EXPECT_NE(ctx.audit.error.value_or("").find("no answer"), std::string::npos);
}

TEST_F(stage_egress, a_minted_task_is_pinned_to_its_upstream_before_the_answer_goes_back) {
    for (auto text :
         {R"({"jsonrpc":"2.0","id":31,"result":{"task":{"taskId":"t-9"}}})",
          R"({"jsonrpc":"2.0","id":31,"result":{"resultType":"task","taskId":"t-9"}})"}) {
        services.asked.clear();
        fresh();
        request("tools/call");
        answered_upstream(text);
        auto r = run();
        EXPECT_EQ(r.verdict, verdict::proceed);
        EXPECT_FALSE(r.at_once);
        EXPECT_EQ(services.asked, std::vector<std::string>{"pin_task t-9"}) << text;
        EXPECT_EQ(services.upstream, 1u);
        EXPECT_NE(ctx.answer.verbatim.find(R"("id":7)"), std::string::npos);
        EXPECT_EQ(ctx.audit.outcome, protocol::outcome::ok);
    }
}

TEST_F(stage_egress, only_a_tools_call_mints_a_task) {
    request("prompts/get");
    answered_upstream(R"({"jsonrpc":"2.0","id":31,"result":{"task":{"taskId":"t-9"}}})");
    EXPECT_TRUE(run().at_once);
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(stage_egress, a_list_is_completed_from_what_was_fetched) {
    request("tools/list", {{"cursor", "c-1"}});
    ctx.routed.plan = actors::list_plan{};
    ctx.proxied.fetched = {{0, json::array{}}, {1, std::nullopt}};
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_FALSE(r.at_once);
    EXPECT_EQ(services.asked, std::vector<std::string>{"complete_list tools/list"});
    EXPECT_EQ(services.plan, &*ctx.routed.plan);
    ASSERT_EQ(services.fetched.size(), 2u);
    EXPECT_EQ(services.fetched[1].upstream, 1u);
    EXPECT_FALSE(services.fetched[1].items) << "a failed upstream is left out";
    EXPECT_EQ(services.id, 7);
    EXPECT_EQ(services.params, (json::object{{"cursor", "c-1"}}));
    EXPECT_EQ(ctx.answer.response, services.list_answer);
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::ok);
}

TEST_F(stage_egress, a_call_of_gates_own_tool_is_answered_from_the_tools_fetched_for_it) {
    request("tools/call", {{"name", "gate_search_tools"}});
    ctx.routed.plan = actors::list_plan{};
    ctx.routed.gate_tool = protocol::gate_tool::search;
    ctx.proxied.fetched = {{0, json::array{}}};
    auto r = run();
    EXPECT_FALSE(r.at_once);
    EXPECT_EQ(services.asked, std::vector<std::string>{"answer_gate_tool search"});
    EXPECT_EQ(services.plan, &*ctx.routed.plan);
    ASSERT_EQ(services.fetched.size(), 1u);
    EXPECT_EQ(services.params, (json::object{{"name", "gate_search_tools"}}));
    EXPECT_EQ(ctx.answer.response, services.list_answer);
}

TEST_F(stage_egress, a_list_refused_before_egress_is_not_completed) {
    request("tools/list");
    ctx.routed.plan = actors::list_plan{};
    ctx.answer.response =
        json::object{{"jsonrpc", "2.0"}, {"id", 7}, {"error", {{"code", -32603}}}};
    EXPECT_TRUE(run().at_once);
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(stage_egress, an_accepted_initialize_opens_and_publishes_a_session) {
    request("initialize", {{"capabilities", {{"sampling", json::object{}}}}});
    ctx.proxied.negotiated_version = "2025-11-25";
    ctx.who.caller = std::make_shared<const principal>(
        principal{"alice", "https://idp.example", {}, json::object{}});
    ctx.answer.response = json::object{{"jsonrpc", "2.0"}, {"id", 7}, {"result", json::object{}}};
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_FALSE(r.at_once);
    EXPECT_EQ(services.asked,
              (std::vector<std::string>{"open_session", "publish_session session-1"}));
    EXPECT_EQ(services.capabilities, (json::object{{"sampling", json::object{}}}));
    EXPECT_EQ(services.version, "2025-11-25");
    EXPECT_EQ(services.owner, "https://idp.example\nalice");
    EXPECT_EQ(ctx.answer.headers,
              (std::vector<std::pair<std::string, std::string>>{{"Mcp-Session-Id", "session-1"}}));
}

TEST_F(stage_egress, a_session_the_table_refuses_is_not_published) {
    request("initialize");
    ctx.answer.response = json::object{{"jsonrpc", "2.0"}, {"id", 7}, {"result", json::object{}}};
    services.opened = std::nullopt;
    run();
    EXPECT_EQ(services.asked, std::vector<std::string>{"open_session"});
    EXPECT_TRUE(ctx.answer.headers.empty());
}

TEST_F(stage_egress, a_refused_initialize_opens_no_session) {
    request("initialize");
    ctx.answer.response =
        json::object{{"jsonrpc", "2.0"}, {"id", 7}, {"error", {{"code", -32602}}}};
    run();
    EXPECT_TRUE(services.asked.empty());
    EXPECT_TRUE(ctx.answer.headers.empty());
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::error);
}

TEST_F(stage_egress, an_accepted_subscription_is_recorded_for_the_fan_out) {
    request("resources/subscribe");
    answered_upstream(R"({"jsonrpc":"2.0","id":31,"result":{}})");
    ctx.name = "file:///x";
    EXPECT_TRUE(run().at_once);
    EXPECT_EQ(services.asked, std::vector<std::string>{"subscribed file:///x"});

    services.asked.clear();
    fresh();
    request("resources/unsubscribe");
    answered_upstream(R"({"jsonrpc":"2.0","id":32,"result":{}})");
    ctx.name = "file:///x";
    run();
    EXPECT_EQ(services.asked, std::vector<std::string>{"unsubscribed file:///x"});
}

TEST_F(stage_egress, a_refused_subscription_is_not_recorded) {
    request("resources/subscribe");
    answered_upstream(R"({"jsonrpc":"2.0","id":31,"error":{"code":-32002,"message":"no"}})");
    ctx.name = "file:///x";
    run();
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(stage_egress, a_2026_clients_result_says_it_is_complete) {
    request("tools/call");
    ctx.client.modern = true;
    answered_upstream(R"({"jsonrpc":"2.0","id":31,"result":{"content":[]}})");
    EXPECT_TRUE(run().at_once);
    ASSERT_TRUE(ctx.answer.response);
    EXPECT_EQ(ctx.answer.response->at("result").at("resultType"), "complete");
    EXPECT_NE(ctx.answer.verbatim.find(R"("resultType":"complete")"), std::string::npos);
}

TEST_F(stage_egress, a_2026_clients_read_of_an_earlier_upstream_is_not_to_be_cached) {
    request("resources/read");
    ctx.client.modern = true;
    answered_upstream(
        R"({"jsonrpc":"2.0","id":31,"result":{"contents":[{"uri":"a://x","text":"t"}]}})");
    run();
    ASSERT_TRUE(ctx.answer.response);
    const auto& result = ctx.answer.response->at("result").as_object();
    EXPECT_EQ(result.at("ttlMs"), 0);
    EXPECT_EQ(result.at("cacheScope"), "private");
    EXPECT_NE(ctx.answer.verbatim.find(R"("cacheScope":"private")"), std::string::npos);
    // A 2026-07-28 upstream's own say is kept.
    fresh();
    request("resources/read");
    ctx.client.modern = true;
    answered_upstream(
        R"({"jsonrpc":"2.0","id":31,"result":{"contents":[],"resultType":"complete","ttlMs":60000,"cacheScope":"shared"}})");
    run();
    EXPECT_EQ(ctx.answer.response->at("result").at("ttlMs"), 60000);
    EXPECT_EQ(ctx.answer.response->at("result").at("cacheScope"), "shared");
    // Other calls carry none.
    fresh();
    request("tools/call");
    ctx.client.modern = true;
    answered_upstream(R"({"jsonrpc":"2.0","id":31,"result":{"content":[]}})");
    run();
    EXPECT_FALSE(ctx.answer.response->at("result").as_object().contains("ttlMs"));
}

TEST_F(stage_egress, a_2026_client_opens_no_session) {
    request("initialize");
    ctx.client.modern = true;
    ctx.answer.response = json::object{{"jsonrpc", "2.0"}, {"id", 7}, {"result", json::object{}}};
    EXPECT_TRUE(run().at_once);
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(stage_egress, a_2026_clients_list_may_be_cached_privately_for_the_shortest_ttl) {
    doc->upstreams[0].cache_ttl_ms = 30000;
    doc->upstreams[1].cache_ttl_ms = 5000;
    load();
    request("tools/list");
    ctx.client.modern = true;
    ctx.routed.plan = actors::list_plan{};
    run();
    ASSERT_TRUE(ctx.answer.response);
    const auto& result = ctx.answer.response->at("result").as_object();
    EXPECT_EQ(result.at("ttlMs"), 5000);
    EXPECT_EQ(result.at("cacheScope"), "private");
    EXPECT_EQ(result.at("resultType"), "complete");
}

} // namespace
} // namespace gate::gateway::pipeline
