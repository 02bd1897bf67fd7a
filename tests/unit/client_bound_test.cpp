// The judge of what gate sends a client (gateway/pipeline/client_bound), on a 2026-07-28 task
// as a tasks/get answer or a listen's notifications/tasks carries it: its inline result asked
// about at the hook's result stage, its inputRequests decided by the rules for
// server-initiated requests and then the hook's serverRequest stage; a refusal answers the
// request in its place, and turns a pushed task into a failed one that carries nothing else.
#include "gateway/pipeline/client_bound.hpp"
#include "gateway/pipeline/decision_hook_client.hpp"
#include "tests/unit/stage_rig.hpp"

#include <boost/json/parse.hpp>

namespace gate::gateway::pipeline {
namespace client_bound_test {

namespace json = boost::json;

struct judging_hook final : hook_asker {
    std::vector<json::object> asked;
    std::vector<policy::hook_stage> stages;
    hook_answer answer = [] {
        hook_answer a;
        a.what = hook_answer::said::deny;
        a.reason = "not for you";
        a.seconds = 0.001;
        return a;
    }();
    boost::asio::awaitable<hook_answer> ask(const config::decision_hook&, policy::hook_stage stage,
                                            std::string description, std::string_view) override {
        asked.push_back(json::parse(description).as_object());
        stages.push_back(stage);
        co_await test::suspend_once();
        co_return answer;
    }
};

struct client_bound_judge : test::stage_rig {
    judging_hook hook;
    client_bound judge{&hook, nullptr};

    // Elicitation granted at up-a, nothing else asked of clients; the hook at `stages`.
    void with_policy(bool at_result, bool at_server_request) {
        config::policy p;
        config::rule r;
        r.id = "elicit";
        r.allow.push_back({"up-a", {"elicitation/create"}, {}});
        p.rules.push_back(r);
        if (at_result || at_server_request) {
            config::decision_hook h;
            h.url = "http://127.0.0.1:1/decide";
            h.at_call = false;
            h.at_result = at_result;
            h.at_server_request = at_server_request;
            h.send_result = true;
            p.decision_hook = h;
        }
        doc->policy = p;
        fresh();
        ctx.client.modern = true;
        ctx.method = "tasks/get";
        ctx.message.id = 4;
        ctx.name = "t1";
    }
    static json::object task(std::string_view text) { return json::parse(text).as_object(); }
    std::string error_message() const {
        return ctx.answer.response
                   ? std::string(ctx.answer.response->at("error").at("message").as_string())
                   : std::string();
    }
};

TEST_F(client_bound_judge, a_tasks_inline_result_is_asked_about_as_a_result) {
    with_policy(true, false);
    auto t = task(
        R"({"taskId":"t1","status":"completed","result":{"content":[{"type":"text","text":"s"}]}})");
    EXPECT_EQ(finish(judge.judge_task(ctx, t, "t1", "up-a")), verdict::answered);
    ASSERT_EQ(hook.stages.size(), 1u);
    EXPECT_EQ(hook.stages[0], policy::hook_stage::result);
    EXPECT_EQ(hook.asked[0].at("method"), "tasks/get");
    EXPECT_EQ(hook.asked[0].at("upstreamName"), "t1");
    EXPECT_EQ(hook.asked[0].at("result").at("content").at(0).at("text"), "s");
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), -31042);
    EXPECT_NE(error_message().find("the result of task t1 on up-a"), std::string::npos);
}

TEST_F(client_bound_judge, an_input_request_no_rule_grants_is_refused_before_the_hook) {
    with_policy(false, true);
    auto t = task(R"({"taskId":"t1","status":"input_required","inputRequests":{
        "m":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}}})");
    EXPECT_EQ(finish(judge.judge_task(ctx, t, "t1", "up-a")), verdict::answered);
    EXPECT_TRUE(hook.asked.empty()) << "the rules refused it first";
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), -31042);
    EXPECT_NE(error_message().find("sampling/createMessage from upstream up-a"), std::string::npos);
    EXPECT_EQ(ctx.policy.decision, "deny");
}

TEST_F(client_bound_judge, an_input_request_a_rule_grants_is_asked_about_at_server_request) {
    with_policy(false, true);
    auto t = task(R"({"taskId":"t1","status":"input_required","inputRequests":{
        "w":{"method":"elicitation/create","params":{"message":"who?","requestedSchema":{}}}}})");
    EXPECT_EQ(finish(judge.judge_task(ctx, t, "t1", "up-a")), verdict::answered);
    ASSERT_EQ(hook.stages.size(), 1u);
    EXPECT_EQ(hook.stages[0], policy::hook_stage::server_request);
    EXPECT_EQ(hook.asked[0].at("method"), "elicitation/create");
    hook.answer.what = hook_answer::said::allow;
    fresh();
    ctx.client.modern = true;
    EXPECT_EQ(finish(judge.judge_task(ctx, t, "t1", "up-a")), verdict::proceed);
    EXPECT_FALSE(ctx.answer.response);
}

TEST_F(client_bound_judge, only_the_answered_keys_are_judged_for_an_update) {
    with_policy(false, false);
    auto asks = json::parse(R"({"w":{"method":"elicitation/create","params":{}},
                                "m":{"method":"sampling/createMessage","params":{}}})");
    json::object answers_w{{"w", json::object{{"action", "accept"}}}};
    EXPECT_EQ(finish(judge.judge_input_requests(ctx, &asks, "up-a", &answers_w)), verdict::proceed);
    json::object answers_m{{"m", json::object{}}};
    EXPECT_EQ(finish(judge.judge_input_requests(ctx, &asks, "up-a", &answers_m)),
              verdict::answered);
}

// An answer to a key the task does not ask now was judged by nothing: refused before any is
// judged, naming the key, whether or not the task asks anything else.
TEST_F(client_bound_judge, an_update_answering_a_key_the_task_does_not_ask_is_refused) {
    with_policy(false, true);
    hook.answer.what = hook_answer::said::allow;
    auto asks = json::parse(R"({"w":{"method":"elicitation/create","params":{}}})");
    json::object answers{{"w", json::object{{"action", "accept"}}},
                         {"ghost", json::object{{"action", "accept"}}}};
    EXPECT_EQ(finish(judge.judge_input_requests(ctx, &asks, "up-a", &answers)), verdict::answered);
    EXPECT_TRUE(hook.asked.empty()) << "refused before any is judged";
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), -32602);
    EXPECT_NE(error_message().find("\"ghost\""), std::string::npos) << error_message();

    fresh();
    ctx.client.modern = true;
    json::value asks_nothing = json::object{};
    json::object answers_w{{"w", json::object{{"action", "accept"}}}};
    EXPECT_EQ(finish(judge.judge_input_requests(ctx, &asks_nothing, "up-a", &answers_w)),
              verdict::answered);
    EXPECT_NE(error_message().find("\"w\""), std::string::npos) << error_message();
}

TEST_F(client_bound_judge, a_task_without_a_result_or_requests_passes_unasked) {
    with_policy(true, true);
    auto t = task(R"({"taskId":"t1","status":"working"})");
    EXPECT_EQ(finish(judge.judge_task(ctx, t, "t1", "up-a")), verdict::proceed);
    EXPECT_TRUE(hook.asked.empty());
}

TEST_F(client_bound_judge, a_tasks_input_requests_are_judged_beside_its_result) {
    with_policy(false, true);
    auto t = task(R"({"taskId":"t1","status":"input_required","result":{},"inputRequests":{
        "m":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}}})");
    EXPECT_EQ(finish(judge.judge_task(ctx, t, "t1", "up-a")), verdict::answered);
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), -31042);
    EXPECT_NE(error_message().find("sampling/createMessage from upstream up-a"), std::string::npos);
}

TEST_F(client_bound_judge, a_task_result_that_is_not_an_object_is_the_upstreams_fault) {
    with_policy(true, false);
    auto t = task(R"({"taskId":"t1","status":"completed","result":"secret text"})");
    EXPECT_EQ(finish(judge.judge_task(ctx, t, "t1", "up-a")), verdict::answered);
    EXPECT_TRUE(hook.asked.empty());
    EXPECT_NE(error_message().find("not an object"), std::string::npos);
}

TEST_F(client_bound_judge, a_refused_pushed_task_fails_with_the_refusal_and_carries_nothing_else) {
    auto t = task(R"({"taskId":"t1","status":"completed","createdAt":"x","lastUpdatedAt":"y",
        "ttlMs":60000,"result":{"content":[]},"_meta":{"k":1}})");
    auto refusal = task(R"({"jsonrpc":"2.0","id":null,"error":{"code":-31042,"message":"no"}})");
    auto failed = refused_task(t, refusal);
    EXPECT_EQ(failed.at("status"), "failed");
    EXPECT_EQ(failed.at("error").at("code"), -31042);
    EXPECT_FALSE(failed.contains("result"));
    EXPECT_FALSE(failed.contains("inputRequests"));
    EXPECT_EQ(failed.at("taskId"), "t1");
    EXPECT_EQ(failed.at("ttlMs"), 60000);
    EXPECT_EQ(failed.at("_meta").at("k"), 1);
}

TEST_F(client_bound_judge, the_rules_for_server_requests_and_the_hooks_stage_are_read_here) {
    with_policy(false, true);
    const auto& snap = *ctx.view->snap;
    EXPECT_FALSE(server_request_refused(snap, nullptr, "up-a", "elicitation/create"));
    auto refused = server_request_refused(snap, nullptr, "up-a", "sampling/createMessage");
    ASSERT_TRUE(refused);
    EXPECT_NE(refused->find("sampling/createMessage"), std::string::npos) << *refused;
    EXPECT_NE(refused->find("up-a"), std::string::npos) << *refused;
    EXPECT_TRUE(server_request_hook(snap, &hook));
    EXPECT_FALSE(server_request_hook(snap, nullptr)) << "no asker: never asked";
    with_policy(true, false);
    EXPECT_FALSE(server_request_hook(*ctx.view->snap, &hook)) << "not asked at serverRequest";
}

TEST_F(client_bound_judge, a_listener_is_judged_on_the_view_of_now_and_placed_by_its_tenants) {
    config::tenant ops;
    ops.id = "ops";
    ops.subjects.groups = {"ops"};
    doc->tenants.push_back(ops);
    fresh();
    auto now = ctx.view;
    request_context listener;
    listener.who.caller = std::make_shared<const principal>(principal{"alice", "iss", {"ops"}, {}});
    listener.who.tenant = "gone"; // placed by a snapshot a reload replaced
    listener.who.tenant_index = 7;
    listener.tracing.traceparent = "00-aa-bb-01";
    auto judged = judged_now(listener, now);
    EXPECT_EQ(judged.view, now);
    EXPECT_EQ(judged.who.caller, listener.who.caller);
    EXPECT_EQ(judged.tracing.traceparent, listener.tracing.traceparent);
    ASSERT_TRUE(judged.who.tenant_index);
    EXPECT_EQ(*judged.who.tenant_index, 0u);
    EXPECT_EQ(judged.who.tenant, "ops");
    listener.who.caller = std::make_shared<const principal>(principal{"bob", "iss", {"dev"}, {}});
    EXPECT_FALSE(judged_now(listener, now).who.tenant) << "no tenant of now selects bob";
}

} // namespace client_bound_test
} // namespace gate::gateway::pipeline
