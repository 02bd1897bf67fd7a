// One upstream call's context (gateway/mcp/upstream_calls.hpp) over a fake of its services, on
// the rig's federation (up-a shares gate's credential; up-b, where a test makes it so, takes
// the caller's own): a request without a client's stream on the shared root session; a named
// call on the session's bridge, observed by its bridged_call (the client's capabilities for a
// new bridged session, the keeper told when one runs and there is a session, input asked only
// of a 2025-11-25 client with a call stream); the observer's messages and input requests
// admitted by the services' policy; the capability profile asked once per request; the caller's
// credential made once per request, riding its principal's bridge without a session's; a call
// that never connects counted, told over and noted on the request; and one on a scripted
// upstream (tests/unit/upstream_loopback.hpp) that opens the session's bridged session, after
// which the client's capabilities are not asked again.
#include "gateway/accounts/user_accounts.hpp"
#include "gateway/mcp/upstream_calls.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "protocol/gateway_error.hpp"
#include "tests/support/quiet_bridges.hpp"
#include "tests/unit/stage_rig.hpp"
#include "tests/unit/upstream_loopback.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace gate::gateway {
namespace {

namespace json = boost::json;

// Answers as told and notes what it was asked, in order.
struct fake_call_services final : server_request_judge,
                                  client_capabilities,
                                  client_input,
                                  test::quiet_bridges,
                                  upstream_counts {
    bool keeper = true;
    bool admit = true;
    json::object client_caps{{"sampling", json::object{}}};
    std::optional<protocol::sourced_object> input_answer;
    std::vector<std::string> told; // "<service> <argument>..."
    struct admission {
        std::size_t upstream;
        policy::caller_ref who;
        json::object request;
        std::optional<std::string> bridge;
    };
    std::vector<admission> admissions;
    std::vector<const keeper_batch::open_call*> opens; // call_sent, call_over

    bool keeps_bridges() override { return keeper; }
    void call_sent(keeper_batch::open_call& open, const std::string& session,
                   const std::string& client_id, const std::string& upstream,
                   std::int64_t upstream_id) override {
        told.push_back("call_sent " + session + " " + client_id + " " + upstream + " " +
                       std::to_string(upstream_id));
        opens.push_back(&open);
    }
    void call_over(keeper_batch::open_call& open) override {
        told.push_back("call_over");
        opens.push_back(&open);
    }
    void used(const std::string& bridge, const std::string& upstream) override {
        told.push_back("used " + bridge + " " + upstream);
    }
    json::object capabilities(const std::string& session) override {
        told.push_back("capabilities " + session);
        return client_caps;
    }
    void count(const std::string& upstream, std::string_view outcome, double seconds) override {
        told.push_back("count " + upstream + " " + std::string(outcome));
        EXPECT_GE(seconds, 0.0);
    }
    void tool_dropped(const std::string&, std::string_view) override {}
    bool admit_server_request(const federation_view&, std::size_t upstream,
                              const policy::caller_ref& who, const json::object& request,
                              const std::optional<std::string>& bridge) override {
        admissions.push_back({upstream, who, request, bridge});
        return admit;
    }
    bool hook_asks(const federation_view&, const json::object&, bool) override { return false; }
    boost::asio::awaitable<bool> hook_admits(std::shared_ptr<const federation_view>, std::size_t,
                                             policy::caller_ref, json::object,
                                             std::optional<std::string>) override {
        co_return true;
    }
    void judge_then_deliver(std::shared_ptr<const federation_view>, std::size_t, policy::caller_ref,
                            upstream_message m, std::string,
                            std::function<bool(upstream_message&)> deliver) override {
        deliver(m);
    }
    boost::asio::awaitable<std::optional<protocol::sourced_object>>
    ask_client_input(request_context& ctx, protocol::sourced_object request) override {
        told.push_back("ask_client_input " + ctx.client.session + " " + request.source);
        co_await test::suspend_once();
        co_return input_answer;
    }
};

policy::caller_ref alice() {
    auto p = std::make_shared<principal>();
    p->issuer = "https://idp.example";
    p->subject = "alice";
    return p;
}

struct upstream_calls_rig : test::stage_rig {
    fake_call_services services;
    accounts::user_accounts accounts{io.get_executor()};
    account_logins logins{accounts, services, services};
    upstream_calls calls{services, services, services, services, services, logins};
    std::vector<std::pair<std::size_t, std::string>> passed; // rec.sinks.server_message's
    std::vector<std::string> bridges;                        // and the sessions they came on

    // A named call of session s1 with a stream for the upstream's messages.
    void on_session() {
        ctx.client.session = "s1";
        ctx.client.client_id = "7";
        ctx.sinks.server_message = [this](std::size_t upstream, const std::string& bridge,
                                          upstream_message m) {
            passed.emplace_back(upstream, m.raw());
            bridges.push_back(bridge);
        };
    }
    // up-b takes each caller's own credential.
    void per_caller_b(std::string strategy = "passthrough") {
        doc->upstreams[1].auth.strategy = std::move(strategy);
        load();
    }
    void as_alice(std::optional<std::string> authorization = "Bearer tok-1") {
        ctx.who.caller = alice();
        ctx.admission.authorization = std::move(authorization);
    }
};

TEST_F(upstream_calls_rig, a_request_without_a_stream_at_a_shared_upstream_is_the_root_session) {
    ctx.tracing.traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    ctx.client.session = "s1";
    upstream_calls::bridged_call call;
    auto c = calls.bridged_context(ctx, 0, call);
    EXPECT_EQ(c.traceparent, ctx.tracing.traceparent);
    EXPECT_TRUE(c.bridge.empty());
    EXPECT_EQ(c.observer, nullptr);
    EXPECT_EQ(c.client_capabilities, nullptr);
    EXPECT_EQ(c.caller, nullptr);
    EXPECT_EQ(call.rec, nullptr);
    EXPECT_TRUE(services.told.empty());
}

TEST_F(upstream_calls_rig, a_named_call_rides_the_sessions_bridge_observed_by_its_call) {
    on_session();
    upstream_calls::bridged_call call;
    auto c = calls.bridged_context(ctx, 1, call);
    EXPECT_EQ(c.bridge, "s1");
    EXPECT_EQ(c.observer, &call);
    EXPECT_EQ(call.calls, &calls);
    EXPECT_EQ(call.rec, &ctx);
    EXPECT_EQ(call.upstream, 1u);
    EXPECT_EQ(call.bridge, "s1");
    // The client has no bridged session at up-b yet: its capabilities go with the call.
    EXPECT_EQ(services.told, (std::vector<std::string>{"capabilities s1"}));
    EXPECT_EQ(c.client_capabilities, &call.capabilities);
    EXPECT_EQ(call.capabilities, services.client_caps);
    EXPECT_EQ(c.caller, nullptr); // a shared-credential upstream
    EXPECT_TRUE(call.tells_keeper);
    EXPECT_FALSE(call.asks_input); // no call stream to ask on
    EXPECT_FALSE(call.answers_input());
}

TEST_F(upstream_calls_rig, the_keeper_hears_of_a_call_only_when_one_runs_and_there_is_a_session) {
    on_session();
    services.keeper = false;
    upstream_calls::bridged_call without_keeper;
    calls.bridged_context(ctx, 0, without_keeper);
    EXPECT_FALSE(without_keeper.tells_keeper);
    without_keeper.sent(12);

    services.keeper = true;
    ctx.client.session.clear();
    upstream_calls::bridged_call without_session;
    calls.bridged_context(ctx, 0, without_session);
    EXPECT_FALSE(without_session.tells_keeper);
    without_session.sent(13);
    for (const auto& t : services.told)
        EXPECT_NE(t.rfind("call_sent", 0), 0u) << t;

    ctx.client.session = "s1";
    upstream_calls::bridged_call told;
    calls.bridged_context(ctx, 0, told);
    ASSERT_TRUE(told.tells_keeper);
    told.sent(14);
    EXPECT_EQ(services.told.back(), "call_sent s1 7 up-a 14");
    ASSERT_FALSE(services.opens.empty());
    EXPECT_EQ(services.opens.back(), &told.open);
}

TEST_F(upstream_calls_rig, input_is_asked_only_of_a_2025_11_25_client_with_a_call_stream) {
    on_session();
    ctx.sinks.push_to_client = [](std::string) {};
    upstream_calls::bridged_call streamed;
    calls.bridged_context(ctx, 0, streamed);
    EXPECT_TRUE(streamed.asks_input);
    EXPECT_TRUE(streamed.answers_input());

    ctx.client.modern = true;
    ctx.client.modern_capabilities = json::object{{"elicitation", json::object{}}};
    services.told.clear();
    upstream_calls::bridged_call modern;
    auto c = calls.bridged_context(ctx, 0, modern);
    EXPECT_FALSE(modern.asks_input);
    // A 2026-07-28 request declares its capabilities itself: the session's are not asked.
    EXPECT_TRUE(services.told.empty());
    EXPECT_EQ(c.client_capabilities, &modern.capabilities);
    EXPECT_EQ(modern.capabilities, ctx.client.modern_capabilities);
}

TEST_F(upstream_calls_rig, the_upstreams_messages_reach_the_client_as_the_policy_allows) {
    on_session();
    ctx.who.caller = alice();
    upstream_calls::bridged_call call;
    calls.bridged_context(ctx, 1, call);
    const std::string ask =
        R"({"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}})";
    services.admit = false;
    call.message("s1", upstream_message::of_text(ask));
    EXPECT_TRUE(passed.empty());
    services.admit = true;
    call.message("s1", upstream_message::of_text(ask));
    ASSERT_EQ(passed.size(), 1u);
    EXPECT_EQ(passed[0], (std::pair<std::size_t, std::string>{1, ask}));
    EXPECT_EQ(bridges, std::vector<std::string>{"s1"}); // where an answer to it must go
    ASSERT_EQ(services.admissions.size(), 2u);
    for (const auto& a : services.admissions) {
        EXPECT_EQ(a.upstream, 1u);
        EXPECT_EQ(a.who, ctx.who.caller);
        EXPECT_EQ(a.request.at("method"), "sampling/createMessage");
        EXPECT_EQ(a.bridge, std::optional<std::string>("s1"));
    }
}

TEST_F(upstream_calls_rig, an_input_request_the_policy_refuses_is_not_asked) {
    on_session();
    ctx.sinks.push_to_client = [](std::string) {};
    upstream_calls::bridged_call call;
    calls.bridged_context(ctx, 0, call);
    services.told.clear();
    services.input_answer = protocol::sourced_object{json::object{{"action", "accept"}}, "{}"};
    protocol::sourced_object request{json::object{{"method", "elicitation/create"}},
                                     R"({"method":"elicitation/create"})"};

    services.admit = false;
    auto refused = finish(call.ask_client(request));
    EXPECT_FALSE(refused);
    EXPECT_TRUE(services.told.empty());

    services.admit = true;
    auto answered = finish(call.ask_client(request));
    ASSERT_TRUE(answered);
    EXPECT_EQ(answered->value, services.input_answer->value);
    EXPECT_EQ(services.told, (std::vector<std::string>{"ask_client_input s1 " + request.source}));
    ASSERT_EQ(services.admissions.size(), 2u);
    EXPECT_EQ(services.admissions[0].request, request.value);
    EXPECT_EQ(services.admissions[0].upstream, 0u);
    EXPECT_FALSE(services.admissions[0].bridge); // an input request names no bridge
}

TEST_F(upstream_calls_rig, the_profile_is_asked_once_per_request) {
    ctx.client.session = "s1";
    services.client_caps = json::object{{"sampling", json::object{}}, {"roots", json::object{}}};
    auto expected = protocol::profile_of(services.client_caps);
    EXPECT_EQ(calls.profile_of(ctx), expected);
    ASSERT_TRUE(ctx.client.profile);
    EXPECT_EQ(*ctx.client.profile, expected);
    services.client_caps = {};
    EXPECT_EQ(calls.profile_of(ctx), expected); // cached on the request
    EXPECT_EQ(services.told, (std::vector<std::string>{"capabilities s1"}));

    fresh();
    ctx.client.modern = true;
    ctx.client.modern_capabilities =
        json::object{{"elicitation", json::object{{"url", json::object{}}}}};
    services.told.clear();
    EXPECT_EQ(calls.profile_of(ctx), protocol::profile_bit::elicitation_url);
    EXPECT_TRUE(services.told.empty());
}

TEST_F(upstream_calls_rig, a_per_caller_upstream_gets_the_caller_made_once_per_request) {
    per_caller_b();
    on_session();
    as_alice();
    upstream_calls::bridged_call first, second;
    auto c1 = calls.bridged_context(ctx, 1, first);
    auto c2 = calls.bridged_context(ctx, 1, second);
    ASSERT_TRUE(c1.caller);
    EXPECT_EQ(c1.caller->token, "tok-1");
    EXPECT_EQ(c1.caller->issuer, "https://idp.example");
    EXPECT_EQ(c1.caller->subject, "alice");
    EXPECT_EQ(c1.caller.get(), ctx.who.caller_token.get());
    EXPECT_EQ(c2.caller.get(), c1.caller.get()); // made once
    // The session's own bridge: the principal's is not used.
    EXPECT_EQ(c1.bridge, "s1");
    for (const auto& t : services.told)
        EXPECT_NE(t.rfind("used ", 0), 0u) << t;

    // The shared-credential upstream gets no caller.
    upstream_calls::bridged_call shared;
    EXPECT_EQ(calls.bridged_context(ctx, 0, shared).caller, nullptr);
}

TEST_F(upstream_calls_rig, without_a_sessions_bridge_the_principals_own_bridge_is_ridden) {
    per_caller_b("token-exchange");
    as_alice();
    upstream_calls::bridged_call call;
    auto c = calls.bridged_context(ctx, 1, call); // no server_message, no session
    ASSERT_TRUE(c.caller);
    const std::string bridge = "principal https://idp.example\nalice";
    EXPECT_EQ(c.bridge, bridge);
    EXPECT_EQ(c.observer, nullptr); // nobody hears the upstream's messages for it
    EXPECT_EQ(services.told,
              (std::vector<std::string>{"used " + bridge + " up-b", "capabilities "}));

    fresh();
    as_alice();
    services.keeper = false;
    services.told.clear();
    call_context bound;
    calls.bind_caller(bound, ctx, 1);
    EXPECT_EQ(bound.bridge, bridge);
    EXPECT_TRUE(services.told.empty()); // no keeper to tell
}

TEST_F(upstream_calls_rig, a_caller_without_a_bearer_token_is_bound_to_nothing) {
    per_caller_b();
    as_alice(std::nullopt);
    call_context c;
    calls.bind_caller(c, ctx, 1);
    EXPECT_EQ(c.caller, nullptr);
    EXPECT_TRUE(c.bridge.empty());
    EXPECT_FALSE(ctx.who.caller_token);

    as_alice("Basic dXNlcjpwYXNz");
    calls.bind_caller(c, ctx, 1);
    EXPECT_EQ(c.caller, nullptr);
    EXPECT_TRUE(services.told.empty());
}

TEST_F(upstream_calls_rig, a_call_that_never_connects_is_counted_and_told_over) {
    ctx.audit.upstream_calls = 2;
    auto reply = finish(calls.call(0, "tools/call", json::object{}, ctx));
    auto* failed = std::get_if<upstream_failure>(&reply);
    ASSERT_TRUE(failed);
    auto label = protocol::describe(error_for(*failed)).metric_label;
    EXPECT_FALSE(label.empty());
    EXPECT_EQ(services.told,
              (std::vector<std::string>{"call_over", "count up-a " + std::string(label)}));
    EXPECT_EQ(ctx.audit.upstream_calls, 3);
}

// A scripted upstream at up-a (on an ephemeral port): a call there opens the session's
// bridged session, after which the client's capabilities are not asked again.
TEST_F(upstream_calls_rig, a_call_on_a_bridge_counts_ok_and_later_calls_ask_no_capabilities) {
    test::loopback_upstream upstream{io};
    auto at = test::upstream_at(upstream.url(), "up-a");
    at.namespace_ = "a";
    doc->upstreams[0] = at;
    load();
    on_session();
    auto reply = test::run(io, calls.call(0, "tools/call", json::object{{"name", "t"}}, ctx));
    EXPECT_TRUE(std::holds_alternative<upstream_message>(reply));
    ASSERT_FALSE(services.told.empty());
    EXPECT_EQ(services.told.front(), "capabilities s1");
    EXPECT_EQ(services.told.back(), "count up-a ok");
    EXPECT_NE(std::find(services.told.begin(), services.told.end(), "call_over"),
              services.told.end());
    EXPECT_EQ(ctx.audit.upstream_calls, 1);
    EXPECT_EQ(upstream.count("initialize"), 1u);

    services.told.clear();
    upstream_calls::bridged_call again;
    auto c = calls.bridged_context(ctx, 0, again);
    EXPECT_EQ(c.bridge, "s1");
    EXPECT_EQ(c.client_capabilities, nullptr); // the bridged session has them already
    EXPECT_TRUE(services.told.empty());
    ctx.view->for_each_made([](upstream_client& c) { c.close(); });
    test::settle(io);
}

} // namespace
} // namespace gate::gateway
