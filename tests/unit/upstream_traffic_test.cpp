// What upstreams send that is not an answer (gateway/mcp/upstream_traffic.hpp), over a fake of
// its services on the rig's federation (upstream clients that never connected): a retired
// upstream's message dropped; list_changed passed to the services; a resource update delivered
// to the listens and sessions subscribed, and to nobody without a URI or a keeper; nothing for
// the shared root session's messages, or for a client that is gone; a notification for an open
// session delivered as written, a request under an id gate mints and records; and the policy on
// server-initiated requests (ping and everything without one allowed, a denied one audited).
#include "gateway/mcp/upstream_traffic.hpp"
#include "gateway/pipeline/decision_hook_client.hpp"
#include "protocol/gateway_error.hpp"
#include "tests/support/quiet_bridges.hpp"
#include "tests/unit/stage_rig.hpp"

#include <boost/json/parse.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gate::gateway {
namespace {

namespace json = boost::json;
using protocol::gateway_error;

// Answers as told and notes what it was asked and handed.
struct fake_upstream_services final : view_source,
                                      list_news,
                                      task_news_sink,
                                      session_delivery,
                                      listen_delivery,
                                      server_request_ledger,
                                      pipeline::request_exit,
                                      test::quiet_bridges {
    std::shared_ptr<const federation_view> view;
    mutable std::vector<std::string> asked; // "<service> <argument>..." (current_view left out)
    // What it answers.
    bool keeper = true;
    std::optional<std::vector<std::string>> holders;
    std::set<std::string> listens, open_sessions;
    policy::caller_ref principal;
    int minted = 0;
    // What it was handed.
    std::vector<std::pair<std::string, std::string>> to_listens, delivered; // holder, text
    std::vector<std::pair<std::string, std::string>> tasks_heard;           // upstream, text
    struct recorded_request {
        std::string session, minted, upstream;
        json::value upstream_id;
    };
    std::vector<recorded_request> recorded;
    struct audited_request {
        std::string method;
        std::optional<std::string> upstream, decision, error;
        protocol::outcome outcome;
        policy::caller_ref caller;
    };
    std::vector<audited_request> audited;

    std::shared_ptr<const federation_view> current_view() const override { return view; }
    void list_changed(const upstream_client& from, std::string method) override {
        asked.push_back("list_changed " + from.config().id + " " + method);
    }
    boost::asio::awaitable<std::optional<std::vector<std::string>>>
    subscribers(const std::string& upstream, const std::string& uri,
                std::optional<std::string> origin) override {
        asked.push_back("subscribers " + upstream + " " + uri + " " + origin.value_or("-"));
        co_await test::suspend_once();
        co_return holders;
    }
    bool keeps_bridges() override { return keeper; }
    bool deliver_to_listen(const std::string& holder, const upstream_message& m) override {
        if (!listens.contains(holder))
            return false;
        to_listens.emplace_back(holder, m.raw());
        return true;
    }
    void task_news(const std::string& upstream, const upstream_message& m) override {
        tasks_heard.emplace_back(upstream, m.raw());
    }
    bool session_open(const std::string& session) override {
        asked.push_back("session_open " + session);
        return open_sessions.contains(session);
    }
    policy::caller_ref principal_of(const std::string& session) const override {
        asked.push_back("principal_of " + session);
        return principal;
    }
    bool deliver(const std::string& session, const std::string& text) override {
        delivered.emplace_back(session, text);
        return true;
    }
    std::string mint_request_id() override { return "g-" + std::to_string(++minted); }
    void record_server_request(const std::string& session, const std::string& m,
                               const std::string& upstream, json::value upstream_id) override {
        recorded.push_back({session, m, upstream, std::move(upstream_id)});
    }
    void conclude(request_context& denied) override {
        audited.push_back({denied.method, denied.upstream, denied.policy.decision,
                           denied.audit.error, denied.audit.outcome, denied.who.caller});
    }
    hook_asker* hooks = nullptr;
};

struct upstream_traffic_rig : test::stage_rig {
    fake_upstream_services services;
    // Made on first use, and again once the services' hook changed (a hook is given at
    // construction).
    upstream_traffic& traffic() {
        if (!made || made_with != services.hooks) {
            made.emplace(io.get_executor(),
                         upstream_traffic_services{services, services, services, services, services,
                                                   services, services, services.hooks});
            made->send_task_news_to(services);
            made_with = services.hooks;
        }
        return *made;
    }
    std::optional<upstream_traffic> made;
    hook_asker* made_with = nullptr;

    void SetUp() override {
        stage_rig::SetUp();
        services.view = ctx.view;
    }
    // The federation `doc` describes now, policy and all.
    void reload() {
        load();
        services.view = ctx.view;
    }
    const upstream_client* client(std::size_t i) const { return ctx.view->made(i); }
    // `text` from upstream `i` on `bridge`, and whatever it spawned run to its end.
    void hear(std::size_t i, const std::string& bridge, std::string text) {
        hear_from(client(i), bridge, std::move(text));
    }
    void hear_from(const upstream_client* from, const std::string& bridge, std::string text) {
        traffic().on_message(from, bridge, upstream_message::of_text(std::move(text)));
        io.run();
        io.restart();
    }
    bool nothing_delivered() const {
        return services.delivered.empty() && services.to_listens.empty() &&
               services.recorded.empty() && services.minted == 0;
    }
    // A policy that lets upstream a ask the client to sample, and nobody anything else.
    void sampling_only_at_a() {
        config::policy p;
        p.default_decision = "deny";
        p.rules.push_back(config::rule{
            "sampling-a", std::nullopt, {config::grant{"up-a", {"sampling/createMessage"}, {}}}});
        doc->policy = p;
        reload();
    }
};

constexpr const char* sampling_request =
    R"({"jsonrpc":"2.0","id":42,"method":"sampling/createMessage","params":{"temperature":0.50,"maxTokens":1e2}})";

TEST_F(upstream_traffic_rig, a_retired_upstreams_message_is_dropped) {
    services.open_sessions = {"s1"};
    auto retired = upstream_client::make(io.get_executor(), doc->upstreams[0]);
    hear_from(retired.get(), "s1",
              R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
    hear_from(retired.get(), "s1", sampling_request);
    EXPECT_TRUE(services.asked.empty());
    EXPECT_TRUE(nothing_delivered());
}

TEST_F(upstream_traffic_rig, each_list_changed_goes_to_the_services) {
    services.open_sessions = {"s1"};
    std::vector<std::string> expected;
    for (auto kind : {"tools", "prompts", "resources"}) {
        auto method = std::string("notifications/") + kind + "/list_changed";
        hear(1, "s1", R"({"jsonrpc":"2.0","method":")" + method + R"("})");
        hear(0, "", R"({"jsonrpc":"2.0","method":")" + method + R"("})");
        expected.push_back("list_changed up-b " + method);
        expected.push_back("list_changed up-a " + method);
    }
    EXPECT_EQ(services.asked, expected);
    EXPECT_TRUE(nothing_delivered()) << "not passed to the client as it is";
}

TEST_F(upstream_traffic_rig, a_resource_update_without_a_uri_or_a_keeper_reaches_nobody) {
    services.holders = std::vector<std::string>{"s1"};
    services.open_sessions = {"s1"};
    hear(0, "s1", R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{}})");
    hear(0, "s1",
         R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":7}})");
    hear(0, "s1", R"({"jsonrpc":"2.0","method":"notifications/resources/updated"})");
    services.keeper = false;
    hear(
        0, "s1",
        R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///x"}})");
    EXPECT_TRUE(services.asked.empty()) << "the keeper is not asked, the session not looked up";
    EXPECT_TRUE(nothing_delivered());
}

TEST_F(upstream_traffic_rig, a_resource_update_reaches_each_subscriber) {
    services.holders = std::vector<std::string>{"listen-1", "s2", "s3"};
    services.listens = {"listen-1"};
    std::string update =
        R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///x","_meta":{"p":0.50}}})";
    hear(1, "s1", update);
    EXPECT_EQ(services.asked, std::vector<std::string>{"subscribers up-b file:///x s1"})
        << "origin: the bridge";
    EXPECT_EQ(services.to_listens,
              (std::vector<std::pair<std::string, std::string>>{{"listen-1", update}}));
    EXPECT_EQ(services.delivered,
              (std::vector<std::pair<std::string, std::string>>{{"s2", update}, {"s3", update}}))
        << "to the sessions as written";
    EXPECT_EQ(services.minted, 0);
}

TEST_F(upstream_traffic_rig, a_resource_update_on_the_root_session_has_no_origin) {
    services.holders = std::vector<std::string>{"s2"};
    hear(0, "",
         R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"u"}})");
    EXPECT_EQ(services.asked, std::vector<std::string>{"subscribers up-a u -"});
    ASSERT_EQ(services.delivered.size(), 1u);
    EXPECT_EQ(services.delivered.front().first, "s2");
}

TEST_F(upstream_traffic_rig, a_resource_update_the_keeper_cannot_place_reaches_nobody) {
    services.holders = std::nullopt;
    hear(0, "s1",
         R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"u"}})");
    EXPECT_EQ(services.asked, std::vector<std::string>{"subscribers up-a u s1"});
    EXPECT_TRUE(nothing_delivered());
}

TEST_F(upstream_traffic_rig, a_task_notification_goes_to_the_listens_under_its_upstream) {
    const std::string news =
        R"({"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"completed"}})";
    hear(1, "", news);
    EXPECT_EQ(services.tasks_heard,
              (std::vector<std::pair<std::string, std::string>>{{"up-b", news}}));
    EXPECT_TRUE(services.delivered.empty()) << "no session hears of a listen's task";
}

TEST_F(upstream_traffic_rig, the_root_sessions_messages_stay_here) {
    services.open_sessions = {""};
    hear(0, "", R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}})");
    hear(0, "", sampling_request);
    EXPECT_TRUE(services.asked.empty());
    EXPECT_TRUE(nothing_delivered());
}

TEST_F(upstream_traffic_rig, a_request_for_a_client_that_is_gone_is_not_delivered) {
    // The upstream is answered client_gone in the background, on its bridged session; the
    // rig's clients hold none, so that answer is dropped unsent and cannot be observed here.
    hear(0, "s9", sampling_request);
    hear(0, "s9", R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})");
    EXPECT_EQ(services.asked, (std::vector<std::string>{"session_open s9", "session_open s9"}));
    EXPECT_TRUE(nothing_delivered()) << "nothing minted or recorded for it";
}

TEST_F(upstream_traffic_rig, a_notification_for_an_open_session_is_delivered_as_written) {
    services.open_sessions = {"s1"};
    std::string progress =
        R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":0.50,"total":1e2}})";
    hear(1, "s1", progress);
    EXPECT_EQ(services.delivered,
              (std::vector<std::pair<std::string, std::string>>{{"s1", progress}}));
    EXPECT_EQ(services.minted, 0);
    EXPECT_TRUE(services.recorded.empty());
}

TEST_F(upstream_traffic_rig, a_request_goes_to_the_client_under_a_minted_id) {
    services.open_sessions = {"s1"};
    hear(1, "s1", sampling_request);
    EXPECT_EQ(services.asked, (std::vector<std::string>{"session_open s1", "principal_of s1"}));
    ASSERT_EQ(services.recorded.size(), 1u);
    EXPECT_EQ(services.recorded[0].session, "s1");
    EXPECT_EQ(services.recorded[0].minted, "g-1");
    EXPECT_EQ(services.recorded[0].upstream, "up-b");
    EXPECT_EQ(services.recorded[0].upstream_id, 42);
    ASSERT_EQ(services.delivered.size(), 1u);
    EXPECT_EQ(services.delivered[0].first, "s1");
    EXPECT_EQ(
        services.delivered[0].second,
        R"({"jsonrpc":"2.0","id":"g-1","method":"sampling/createMessage","params":{"temperature":0.50,"maxTokens":1e2}})");
    EXPECT_TRUE(services.audited.empty());
}

TEST_F(upstream_traffic_rig, to_client_mints_for_requests_only) {
    auto text = traffic().to_client(
        "s1", "up-a",
        upstream_message::of_text(
            R"({"jsonrpc":"2.0","id":"u-7","method":"roots/list","params":{"x":0.50}})"));
    EXPECT_EQ(text, R"({"jsonrpc":"2.0","id":"g-1","method":"roots/list","params":{"x":0.50}})");
    ASSERT_EQ(services.recorded.size(), 1u);
    EXPECT_EQ(services.recorded[0].upstream_id, "u-7") << "the upstream's own id, as it was";
    std::string note = R"({"jsonrpc":"2.0","method":"notifications/message","params":{"x":0.50}})";
    EXPECT_EQ(traffic().to_client("s1", "up-a", upstream_message::of_text(note)), note);
    EXPECT_EQ(services.minted, 1);
}

TEST_F(upstream_traffic_rig, without_a_policy_every_server_request_is_admitted) {
    auto request = json::parse(sampling_request).as_object();
    EXPECT_TRUE(traffic().admit_server_request(*ctx.view, 1, nullptr, request, std::string("s1")));
    EXPECT_TRUE(traffic().admit_server_request(*ctx.view, 0, nullptr, request, std::nullopt));
    EXPECT_TRUE(services.audited.empty());
}

TEST_F(upstream_traffic_rig, ping_and_notifications_are_admitted_under_any_policy) {
    sampling_only_at_a();
    auto ping = json::parse(R"({"jsonrpc":"2.0","id":1,"method":"ping"})").as_object();
    EXPECT_TRUE(traffic().admit_server_request(*ctx.view, 1, nullptr, ping, std::string("s1")));
    auto progress =
        json::parse(R"({"jsonrpc":"2.0","method":"notifications/progress"})").as_object();
    EXPECT_TRUE(traffic().admit_server_request(*ctx.view, 1, nullptr, progress, std::string("s1")));
    EXPECT_TRUE(services.audited.empty());
}

TEST_F(upstream_traffic_rig, a_server_request_the_policy_denies_is_refused_and_audited_once) {
    sampling_only_at_a();
    auto request = json::parse(sampling_request).as_object();
    auto alice = std::make_shared<const principal>(principal{"alice", "https://idp", {}, {}});
    EXPECT_TRUE(traffic().admit_server_request(*ctx.view, 0, alice, request, std::string("s1")))
        << "up-a may ask for sampling";
    EXPECT_TRUE(services.audited.empty());
    EXPECT_FALSE(traffic().admit_server_request(*ctx.view, 1, alice, request, std::string("s1")));
    io.run(); // the upstream's refusal, sent in the background (no session here: dropped)
    io.restart();
    ASSERT_EQ(services.audited.size(), 1u);
    const auto& a = services.audited.front();
    EXPECT_EQ(a.method, "sampling/createMessage");
    EXPECT_EQ(a.upstream, "up-b");
    EXPECT_EQ(a.decision, "deny");
    EXPECT_EQ(a.outcome, protocol::describe(gateway_error::server_request_denied).audit_outcome);
    EXPECT_EQ(a.caller, alice);
    ASSERT_TRUE(a.error);
    EXPECT_NE(a.error->find("up-b"), std::string::npos) << *a.error;
}

TEST_F(upstream_traffic_rig, a_denied_request_never_reaches_the_client) {
    sampling_only_at_a();
    services.open_sessions = {"s1"};
    hear(1, "s1", sampling_request);
    EXPECT_TRUE(nothing_delivered());
    EXPECT_EQ(services.audited.size(), 1u);
    hear(0, "s1", sampling_request);
    EXPECT_EQ(services.delivered.size(), 1u) << "up-a's is";
    EXPECT_EQ(services.audited.size(), 1u);
}

// The decision hook at its serverRequest stage, faked: what it was asked, what it answers.
struct scripted_hook final : hook_asker {
    std::vector<json::object> asked;
    hook_answer answer{hook_answer::said::deny, "no sampling here", "", "", false, 0.001};
    boost::asio::awaitable<hook_answer> ask(const config::decision_hook&, policy::hook_stage stage,
                                            std::string description,
                                            std::string_view traceparent) override {
        EXPECT_EQ(stage, policy::hook_stage::server_request);
        EXPECT_EQ(traceparent, "");
        asked.push_back(json::parse(description).as_object());
        co_await test::suspend_once();
        co_return answer;
    }
};

struct upstream_traffic_hook : upstream_traffic_rig {
    scripted_hook hook;
    void with_hook(bool send_params) {
        config::policy p;
        p.default_decision = "allow";
        config::decision_hook h;
        h.url = "http://127.0.0.1:1/decide";
        h.at_call = false;
        h.at_server_request = true;
        h.send_arguments = send_params;
        p.decision_hook = h;
        doc->policy = p;
        reload();
        services.hooks = &hook;
        services.open_sessions = {"s1"};
        services.principal = std::make_shared<const principal>(principal{"alice", "idp", {}, {}});
    }
};

TEST_F(upstream_traffic_hook, a_request_the_hook_denies_never_reaches_the_client_and_is_audited) {
    with_hook(true);
    hear(1, "s1", sampling_request);
    EXPECT_TRUE(services.delivered.empty());
    EXPECT_EQ(services.minted, 0);
    ASSERT_EQ(hook.asked.size(), 1u);
    EXPECT_EQ(hook.asked[0].at("stage"), "serverRequest");
    EXPECT_EQ(hook.asked[0].at("method"), "sampling/createMessage");
    EXPECT_EQ(hook.asked[0].at("upstream"), "up-b");
    EXPECT_EQ(hook.asked[0].at("principal").at("subject"), "alice");
    EXPECT_EQ(hook.asked[0].at("arguments").at("maxTokens"), 1e2);
    ASSERT_EQ(services.audited.size(), 1u);
    const auto& a = services.audited.front();
    EXPECT_EQ(a.method, "sampling/createMessage");
    EXPECT_EQ(a.outcome, protocol::outcome::denied);
    EXPECT_EQ(a.decision, "allow") << "the policy's own; the hook denied";
    ASSERT_TRUE(a.error);
    EXPECT_EQ(*a.error, "the decision hook denied sampling/createMessage from upstream up-b to "
                        "this client: no sampling here");
}

TEST_F(upstream_traffic_hook, a_request_the_hook_allows_goes_on_and_notifications_are_never_asked) {
    with_hook(false);
    hook.answer = {hook_answer::said::allow, "", "", "", false, 0.001};
    hear(1, "s1", R"({"jsonrpc":"2.0","method":"notifications/progress","params":{}})");
    EXPECT_TRUE(hook.asked.empty());
    hear(1, "s1", R"({"jsonrpc":"2.0","id":9,"method":"ping"})");
    EXPECT_TRUE(hook.asked.empty());
    hear(1, "s1", sampling_request);
    ASSERT_EQ(hook.asked.size(), 1u);
    EXPECT_FALSE(hook.asked[0].contains("arguments")) << "params only when asked for";
    ASSERT_EQ(services.delivered.size(), 3u);
    EXPECT_NE(services.delivered[2].second.find("\"id\":\"g-"), std::string::npos);
    EXPECT_TRUE(services.audited.empty());
}

TEST_F(upstream_traffic_hook, a_session_that_ended_while_the_hook_decided_gets_nothing) {
    with_hook(false);
    hook.answer = {hook_answer::said::allow, "", "", "", false, 0.001};
    traffic().on_message(client(1), "s1", upstream_message::of_text(sampling_request));
    services.open_sessions.clear(); // the client leaves before the hook answers
    io.run();
    io.restart();
    EXPECT_TRUE(services.delivered.empty());
    EXPECT_EQ(services.minted, 0);
}

} // namespace
} // namespace gate::gateway
