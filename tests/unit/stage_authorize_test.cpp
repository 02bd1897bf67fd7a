// Stage 5, authorize (gateway/pipeline/s5_authorize.hpp), on a real snapshot's compiled policy:
// without a policy or a routed call it lets everything through; with one, every method the
// spec gates is decided for the caller on the routed upstream (a completion behind the prompt
// or resource it completes, a subscription behind the read it implies), a denial is -32042
// naming what was refused, and the decision and the granting rule are left for the audit.
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/s5_authorize.hpp"
#include "tests/unit/stage_rig.hpp"

namespace gate::gateway::pipeline {
namespace {

namespace json = boost::json;

struct stage_authorize : test::stage_rig {
    std::unique_ptr<stage> authorize = make_authorize("", nullptr);

    // alice may call echo* on up-a and read prompts of up-b; nobody else anything.
    void with_policy() {
        config::policy p;
        config::rule r;
        r.id = "alice-tools";
        r.subjects = config::subjects{};
        r.subjects->subs = {"alice"};
        r.allow.push_back({"up-a", {"tools/call"}, {"echo*"}});
        r.allow.push_back({"up-b", {"prompts/get", "resources/read"}, {}});
        p.rules.push_back(r);
        doc->policy = p;
        fresh();
    }
    void as(std::string subject) {
        ctx.who.caller =
            std::make_shared<const principal>(principal{std::move(subject), "idp", {}, {}});
    }
    ran call(std::string method, std::size_t upstream, json::object params) {
        ctx.method = std::move(method);
        ctx.message.id = 5;
        ctx.routed.target = actors::route{upstream, std::move(params), ""};
        return drive(authorize->run(ctx));
    }
    int code() const {
        const auto* e = ctx.answer.response ? ctx.answer.response->if_contains("error") : nullptr;
        return e ? static_cast<int>(e->at("code").as_int64()) : 0;
    }
};

TEST_F(stage_authorize, is_the_authorize_stage) {
    EXPECT_EQ(authorize->id(), gateway::stage::authorize);
}

TEST_F(stage_authorize, without_a_policy_everything_goes_on_at_once) {
    auto r = call("tools/call", 0, {{"name", "anything"}});
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    EXPECT_FALSE(ctx.policy.decision);
}

TEST_F(stage_authorize, a_request_without_a_route_goes_on) {
    with_policy();
    ctx.method = "tools/list";
    EXPECT_EQ(drive(authorize->run(ctx)).verdict, verdict::proceed);
    EXPECT_FALSE(ctx.policy.decision);
}

TEST_F(stage_authorize, a_granted_call_goes_on_with_its_rule) {
    with_policy();
    as("alice");
    auto r = call("tools/call", 0, {{"name", "echo_twice"}});
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    EXPECT_EQ(ctx.policy.decision, "allow");
    EXPECT_EQ(ctx.policy.rule_id, "alice-tools");
    EXPECT_FALSE(ctx.answer.response);
}

TEST_F(stage_authorize, a_call_no_rule_grants_is_denied_with_32042_naming_it) {
    with_policy();
    as("alice");
    ctx.name = "a__shutdown";
    auto r = call("tools/call", 0, {{"name", "shutdown"}});
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_EQ(code(), -32042);
    EXPECT_EQ(ctx.policy.decision, "deny");
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::denied);
    EXPECT_EQ(ctx.audit.error, "policy denied tools/call of a__shutdown on up-a for alice");
    EXPECT_EQ(ctx.answer.response->at("id"), 5);
}

TEST_F(stage_authorize, another_principal_and_an_anonymous_caller_are_denied) {
    with_policy();
    as("mallory");
    EXPECT_EQ(call("tools/call", 0, {{"name", "echo"}}).verdict, verdict::answered);
    EXPECT_EQ(code(), -32042);
    fresh();
    EXPECT_EQ(call("tools/call", 0, {{"name", "echo"}}).verdict, verdict::answered);
    EXPECT_EQ(ctx.audit.error, "policy denied tools/call of echo on up-a");
}

TEST_F(stage_authorize, the_grant_is_per_upstream) {
    with_policy();
    as("alice");
    EXPECT_EQ(call("tools/call", 1, {{"name", "echo"}}).verdict, verdict::answered)
        << "echo is granted on up-a, not on up-b";
}

TEST_F(stage_authorize, a_completion_is_decided_as_what_it_completes) {
    with_policy();
    as("alice");
    json::object prompt{{"ref", {{"type", "ref/prompt"}, {"name", "greet"}}}};
    EXPECT_EQ(call("completion/complete", 1, prompt).verdict, verdict::proceed)
        << "prompts/get on up-b is granted";
    json::object resource{{"ref", {{"type", "ref/resource"}, {"uri", "file:///x"}}}};
    EXPECT_EQ(call("completion/complete", 1, resource).verdict, verdict::proceed);
    EXPECT_EQ(call("completion/complete", 0, prompt).verdict, verdict::answered);
    EXPECT_EQ(code(), -32042);
}

TEST_F(stage_authorize, a_subscription_is_decided_as_the_read_it_implies) {
    with_policy();
    as("alice");
    EXPECT_EQ(call("resources/subscribe", 1, {{"uri", "file:///x"}}).verdict, verdict::proceed);
    EXPECT_EQ(call("resources/subscribe", 0, {{"uri", "file:///x"}}).verdict, verdict::answered);
    fresh();
    as("mallory");
    EXPECT_EQ(call("resources/unsubscribe", 0, {{"uri", "file:///x"}}).verdict, verdict::proceed)
        << "undoing invokes nothing";
}

TEST_F(stage_authorize, a_method_gate_does_not_know_needs_a_grant_naming_it) {
    with_policy();
    as("alice");
    EXPECT_EQ(call("x-vendor/frob", 0, {}).verdict, verdict::answered)
        << "a passthrough method is an invocation with no name";
    EXPECT_EQ(code(), -32042);
}

} // namespace
} // namespace gate::gateway::pipeline
