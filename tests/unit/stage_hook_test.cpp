// policy.decisionHook at stages 5 and 8 with a fake hook (gateway/pipeline/hook_check): asked
// only about what the rules allow, with the description the configuration asks for; a denial
// or a failure under onError "deny" answered -32042 naming what was refused and why (never
// the hook's address), a failure under onError "allow" let through, and the say audited; at
// the result stage the upstream's answer withheld.
#include "gateway/pipeline/decision_hook_client.hpp"
#include "gateway/pipeline/s5_authorize.hpp"
#include "gateway/pipeline/s8_egress.hpp"
#include "tests/unit/stage_rig.hpp"

#include <boost/json/parse.hpp>

namespace gate::gateway::pipeline {
namespace stage_hook_test {

namespace json = boost::json;

struct fake_hook final : hook_asker {
    std::vector<json::object> asked; // each description
    std::vector<std::string> texts;  // each description as written
    std::vector<policy::hook_stage> stages;
    std::vector<std::string> traces; // the traceparent of each question
    hook_answer answer{hook_answer::said::allow, "", "", "", false, 0.001};
    boost::asio::awaitable<hook_answer> ask(const config::decision_hook&, policy::hook_stage stage,
                                            std::string description,
                                            std::string_view traceparent) override {
        asked.push_back(json::parse(description).as_object());
        texts.push_back(description);
        stages.push_back(stage);
        traces.emplace_back(traceparent);
        co_await test::suspend_once();
        co_return answer;
    }
};

struct no_egress_services final : list_stage_services,
                                  task_stage_services,
                                  icon_rewriter,
                                  subscription_stage_services,
                                  session_opener,
                                  session_publisher {
    boost::asio::awaitable<json::object>
    complete_list(protocol::list_kind, const actors::list_plan&, std::vector<actors::fetched_list>,
                  const json::value&, const json::object&, request_context&) override {
        co_return json::object{};
    }
    boost::asio::awaitable<json::object> answer_gate_tool(protocol::gate_tool,
                                                          const actors::list_plan&,
                                                          std::vector<actors::fetched_list>,
                                                          const json::value&, const json::object&,
                                                          request_context&) override {
        co_return json::object{};
    }
    boost::asio::awaitable<void> pin_task(const request_context&, std::size_t,
                                          std::string) override {
        co_return;
    }
    void rewrite_icons(const actors::snapshot&, std::size_t, std::string_view,
                       json::array&) override {}
    void record_subscription(const request_context&, const std::string&, bool) override {}
    std::optional<std::string> open_session(request_context&, const json::object&) override {
        return std::nullopt;
    }
    boost::asio::awaitable<void> publish_session(const std::string&, const std::string&,
                                                 const json::object&, const std::string&) override {
        co_return;
    }
    boost::asio::awaitable<std::vector<actors::fetched_list>>
    fetch_lists(protocol::list_kind, const actors::list_plan&, std::vector<call_ticket>,
                request_context&) override {
        co_return std::vector<actors::fetched_list>{};
    }
    boost::asio::awaitable<json::object> task_call(const json::value&, const std::string&,
                                                   json::object, request_context&) override {
        co_return json::object{};
    }
    boost::asio::awaitable<json::object> subscribe_at_modern_upstream(const std::string&,
                                                                      const json::value&,
                                                                      const actors::route&,
                                                                      request_context&) override {
        co_return json::object{};
    }
};

struct stage_hook : test::stage_rig {
    fake_hook hook;
    no_egress_services egress_services_;
    std::unique_ptr<stage> authorize = make_authorize("", &hook);
    no_egress_services& e = egress_services_;
    std::unique_ptr<stage> egress = make_egress({e, e, e, e, e, e}, &hook);

    // alice may call echo* on up-a; nobody else anything; the hook as given.
    void with_hook(config::decision_hook h) {
        config::policy p;
        config::rule r;
        r.id = "alice-echo";
        r.subjects = config::subjects{};
        r.subjects->subs = {"alice"};
        r.allow.push_back({"up-a", {"tools/call"}, {"echo*"}});
        p.rules.push_back(r);
        p.decision_hook = std::move(h);
        doc->policy = p;
        fresh();
        ctx.who.caller = std::make_shared<const principal>(principal{"alice", "idp", {}, {}});
    }
    static config::decision_hook hook_config() {
        config::decision_hook h;
        h.url = "http://127.0.0.1:1/decide";
        return h;
    }
    ran call(std::string tool, json::object arguments = {}) {
        ctx.method = "tools/call";
        ctx.message.id = 5;
        ctx.name = "a__" + tool;
        ctx.routed.target =
            actors::route{0, {{"name", tool}, {"arguments", std::move(arguments)}}, ""};
        return drive(authorize->run(ctx));
    }
    std::string error_message() const {
        return ctx.answer.response
                   ? std::string(ctx.answer.response->at("error").at("message").as_string())
                   : std::string();
    }
};

TEST_F(stage_hook, what_the_rules_allow_is_asked_about_and_goes_on_when_allowed) {
    with_hook(hook_config());
    ctx.tracing.traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    auto r = call("echo", {{"text", "hi"}});
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_FALSE(r.at_once) << "it waits for the hook";
    ASSERT_EQ(hook.asked.size(), 1u);
    EXPECT_EQ(hook.stages[0], policy::hook_stage::call);
    EXPECT_EQ(hook.traces[0], ctx.tracing.traceparent) << "asked in the call's trace";
    const auto& d = hook.asked[0];
    EXPECT_EQ(d.at("principal").at("subject"), "alice");
    EXPECT_EQ(d.at("method"), "tools/call");
    EXPECT_EQ(d.at("name"), "a__echo");
    EXPECT_EQ(d.at("upstream"), "up-a");
    EXPECT_EQ(d.at("upstreamName"), "echo");
    EXPECT_EQ(d.at("rule"), "alice-echo");
    EXPECT_FALSE(d.contains("arguments")) << "not asked for";
    EXPECT_FALSE(ctx.answer.response);
    ASSERT_TRUE(ctx.policy.hook);
    EXPECT_EQ(ctx.policy.hook->at("verdict"), "allow");
    EXPECT_EQ(ctx.policy.hook->at("stage"), "call");
}

TEST_F(stage_hook, what_the_rules_deny_is_never_asked_about) {
    with_hook(hook_config());
    auto r = call("shutdown");
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_TRUE(r.at_once);
    EXPECT_TRUE(hook.asked.empty());
    EXPECT_FALSE(ctx.policy.hook);
}

TEST_F(stage_hook, a_denial_is_32042_with_the_hooks_reason_and_the_rules_decision_kept) {
    with_hook(hook_config());
    hook.answer = {hook_answer::said::deny, "outside the project", "", "", false, 0.001};
    auto r = call("echo");
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), -32042);
    EXPECT_EQ(error_message(), "the decision hook denied tools/call of a__echo on up-a for alice: "
                               "outside the project");
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::denied);
    EXPECT_EQ(ctx.policy.decision, "allow") << "the policy's own decision";
    EXPECT_EQ(ctx.policy.hook->at("verdict"), "deny");
    EXPECT_EQ(ctx.policy.hook->at("reason"), "outside the project");
}

TEST_F(stage_hook, a_failure_denies_by_default_without_the_hooks_address) {
    with_hook(hook_config());
    hook.answer = {hook_answer::said::error,
                   "",
                   "http://127.0.0.1:1/decide did not answer within 1000 ms",
                   "timeout",
                   false,
                   1.0};
    auto r = call("echo");
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), -32042);
    EXPECT_NE(error_message().find("could not decide tools/call of a__echo"), std::string::npos);
    EXPECT_NE(error_message().find("it did not answer in time"), std::string::npos);
    EXPECT_EQ(error_message().find("127.0.0.1"), std::string::npos) << error_message();
    EXPECT_EQ(ctx.policy.hook->at("verdict"), "error");
    EXPECT_NE(ctx.policy.hook->at("error").as_string().find("127.0.0.1:1"), std::string::npos)
        << "the audit has what failed";
}

TEST_F(stage_hook, a_failure_under_on_error_allow_goes_on) {
    auto h = hook_config();
    h.on_error = "allow";
    with_hook(h);
    hook.answer = {hook_answer::said::error, "", "refused", "unreachable", false, 0.001};
    EXPECT_EQ(call("echo").verdict, verdict::proceed);
    EXPECT_FALSE(ctx.answer.response);
    EXPECT_EQ(ctx.policy.hook->at("verdict"), "error");
}

TEST_F(stage_hook, arguments_go_only_when_asked_for_and_a_result_only_hook_is_not_asked_first) {
    auto h = hook_config();
    h.send_arguments = true;
    with_hook(h);
    call("echo", {{"text", "hi"}});
    ASSERT_EQ(hook.asked.size(), 1u);
    EXPECT_EQ(hook.asked[0].at("arguments"), (json::object{{"text", "hi"}}));

    h.at_call = false;
    h.at_result = true;
    with_hook(h);
    auto r = call("echo", {{"text", "kept"}});
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    EXPECT_EQ(hook.asked.size(), 1u) << "no question before the call";
    ASSERT_TRUE(ctx.policy.hook_at_result);
    EXPECT_EQ(ctx.policy.hook_at_result->upstream_name, "echo");
    EXPECT_EQ(ctx.policy.hook_at_result->arguments, (json::object{{"text", "kept"}}));
}

TEST_F(stage_hook, a_denied_result_is_withheld_and_the_answer_described_as_asked) {
    auto h = hook_config();
    h.at_call = false;
    h.at_result = true;
    h.send_result = true;
    with_hook(h);
    call("echo");
    ctx.upstream = "up-a";
    ctx.proxied.upstream_answer = upstream_message::of_text(
        R"({"jsonrpc":"2.0","id":31,"result":{"content":[{"type":"text","text":"secret"}],"isError":false}})");
    hook.answer = {hook_answer::said::deny, "leaks a secret", "", "", false, 0.001};
    auto r = drive(egress->run(ctx));
    EXPECT_EQ(r.verdict, verdict::proceed);
    ASSERT_EQ(hook.asked.size(), 1u);
    EXPECT_EQ(hook.stages[0], policy::hook_stage::result);
    EXPECT_EQ(hook.asked[0].at("isError"), false);
    EXPECT_EQ(hook.asked[0].at("result").at("content").at(0).at("text"), "secret");
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), -32042);
    EXPECT_EQ(ctx.answer.response->at("id"), 5);
    EXPECT_EQ(error_message(),
              "the decision hook denied the result of tools/call of a__echo on up-a for alice: "
              "leaks a secret");
    EXPECT_EQ(ctx.answer.verbatim.find("secret\""), std::string::npos) << ctx.answer.verbatim;
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::denied);
}

TEST_F(stage_hook, an_allowed_result_goes_back_verbatim_and_an_error_answer_is_said_so) {
    auto h = hook_config();
    h.at_result = true;
    with_hook(h);
    call("echo");
    ctx.proxied.upstream_answer = upstream_message::of_text(
        R"({"jsonrpc":"2.0","id":31,"error":{"code":-32000,"message":"boom"}})");
    drive(egress->run(ctx));
    ASSERT_EQ(hook.asked.size(), 2u);
    EXPECT_EQ(hook.stages[1], policy::hook_stage::result);
    EXPECT_EQ(hook.asked[1].at("isError"), true);
    EXPECT_FALSE(hook.asked[1].contains("result")) << "not asked for";
    EXPECT_EQ(ctx.answer.verbatim,
              R"({"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"boom"}})");
}

// Numbers beyond 2^53 parse equal however their last digits are spelled: the hook is shown the
// call's own `arguments` and the answer's own `result` as written, never a same-named member
// nested before them (in _meta) that parses equal.
TEST_F(stage_hook, the_hook_reads_the_top_level_arguments_and_result_not_a_nested_decoy) {
    auto h = hook_config();
    h.send_arguments = true;
    h.at_result = true;
    h.send_result = true;
    with_hook(h);
    ctx.message.params_source =
        R"({"_meta":{"arguments":{"n":18446744073709551616}},"name":"echo",)"
        R"("arguments":{"n":18446744073709551617}})";
    call("echo", json::parse(R"({"n":18446744073709551617})").as_object());
    ASSERT_EQ(hook.texts.size(), 1u);
    EXPECT_NE(hook.texts[0].find(R"("arguments":{"n":18446744073709551617})"), std::string::npos)
        << hook.texts[0];
    EXPECT_EQ(hook.texts[0].find("551616"), std::string::npos) << hook.texts[0];

    ctx.proxied.upstream_answer = upstream_message::of_text(
        R"({"jsonrpc":"2.0","id":31,"_meta":{"result":{"n":18446744073709551616}},)"
        R"("result":{"n":18446744073709551617}})");
    drive(egress->run(ctx));
    ASSERT_EQ(hook.texts.size(), 2u);
    EXPECT_NE(hook.texts[1].find(R"("result":{"n":18446744073709551617})"), std::string::npos)
        << hook.texts[1];
    EXPECT_EQ(hook.texts[1].find("551616"), std::string::npos) << hook.texts[1];
}

} // namespace stage_hook_test
} // namespace gate::gateway::pipeline
