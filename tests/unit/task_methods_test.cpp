// The task methods (gateway/mcp/task_methods.hpp) over a fake of their services: a task id is
// checked, its owner found in the keeper, then in the fleet's record, then by a read-only probe
// of the upstreams the caller may reach; the method goes to the owner after the guards (tenant,
// policy, budgets), and another principal's task is answered as one nobody minted. tasks/list
// merges what every reachable upstream answers and pages it; a minted task is pinned and
// recorded for the fleet.
#include "gateway/mcp/task_methods.hpp"
#include "protocol/json_rpc.hpp"
#include "tests/support/unchanged_icons.hpp"
#include "tests/unit/stage_rig.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <chrono>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace gate::gateway {
namespace {

namespace json = boost::json;
namespace ec = protocol::error_code;

constexpr auto working =
    R"({"jsonrpc":"2.0","id":41,"result":{"taskId":"t-1","status":"working"}})";
constexpr auto no_such_task =
    R"({"jsonrpc":"2.0","id":41,"error":{"code":-32602,"message":"no such task"}})";

// Answers as told and keeps what it was asked, in order.
struct fake_task_services final : task_records, invocation_charges, task_upstreams, task_pages {
    hook_asker* decision_hook() { return nullptr; }
    std::vector<std::string> asked; // "<service> <arguments>"
    struct made_call {
        std::size_t upstream;
        std::string method;
        json::object params;
        bool client_call;
    };
    std::vector<made_call> calls;
    std::optional<json::array> merged;
    std::optional<std::string> cursor;
    // What it answers.
    std::optional<actors::task_owner> owner = actors::task_owner{}; // the keeper's record: unknown
    std::optional<std::string> record;                              // the fleet's: none
    std::map<std::size_t, actors::budget_ledger::exhausted> spent;  // by upstream (else: charged)
    std::map<std::size_t, upstream_reply> replies;                  // by upstream (else: `working`)
    std::map<std::size_t, std::variant<json::array, upstream_failure>> lists; // else: []
    list_page page_answer = actors::list_answer{
        protocol::list_kind::tasks, std::make_shared<const std::string>("[]"), std::nullopt, 0};

    boost::asio::awaitable<std::optional<actors::task_owner>>
    find(const std::string& id, std::uint64_t principal) override {
        asked.push_back("find " + id + " " + std::to_string(principal));
        co_await test::suspend_once();
        co_return owner;
    }
    void pin(const std::string& id, std::uint64_t principal, const std::string& upstream) override {
        asked.push_back("pin " + id + " " + std::to_string(principal) + " " + upstream);
    }
    void locate(const std::string& id, const std::string& upstream) override {
        asked.push_back("locate " + id + " " + upstream);
    }
    boost::asio::awaitable<std::optional<std::string>>
    fleet_record(const std::string& id) override {
        asked.push_back("fleet_record " + id);
        co_await test::suspend_once();
        co_return record;
    }
    boost::asio::awaitable<void> put_fleet_record(const std::string& id,
                                                  std::string written) override {
        asked.push_back("put_fleet_record " + id + " " + written);
        co_await test::suspend_once();
    }
    boost::asio::awaitable<std::optional<actors::budget_ledger::exhausted>>
    charge(const request_context&, std::size_t upstream) override {
        asked.push_back("charge " + std::to_string(upstream));
        co_await test::suspend_once();
        auto at = spent.find(upstream);
        if (at == spent.end())
            co_return std::nullopt;
        co_return at->second;
    }
    boost::asio::awaitable<upstream_reply> call_upstream(std::size_t upstream,
                                                         std::string_view method,
                                                         json::object params, request_context&,
                                                         bool client_call) override {
        asked.push_back("call " + std::to_string(upstream) + " " + std::string(method) +
                        (client_call ? " (client)" : " (probe)"));
        calls.push_back({upstream, std::string(method), std::move(params), client_call});
        co_await test::suspend_once();
        auto at = replies.find(upstream);
        if (at == replies.end())
            co_return upstream_message::of_text(working);
        co_return at->second;
    }
    boost::asio::awaitable<std::variant<json::array, upstream_failure>>
    fetch_tasks(std::size_t upstream, request_context&) override {
        asked.push_back("fetch_tasks " + std::to_string(upstream));
        co_await test::suspend_once();
        auto at = lists.find(upstream);
        if (at == lists.end())
            co_return json::array{};
        co_return at->second;
    }
    boost::asio::awaitable<list_page> page(request_context&, json::array m,
                                           std::optional<std::string> c) override {
        asked.push_back("page");
        merged = std::move(m);
        cursor = std::move(c);
        co_await test::suspend_once();
        co_return page_answer;
    }

    bool was_asked(std::string_view what) const {
        return std::find(asked.begin(), asked.end(), what) != asked.end();
    }
    std::size_t asked_to(std::string_view service) const {
        return std::count_if(asked.begin(), asked.end(),
                             [&](const std::string& a) { return a.starts_with(service); });
    }
    // The calls made, by upstream (probes run concurrently).
    std::vector<made_call> calls_by_upstream() const {
        auto sorted = calls;
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const auto& x, const auto& y) { return x.upstream < y.upstream; });
        return sorted;
    }
};

upstream_failure down(std::string message) {
    return upstream_failure{upstream_failure::kind::connect_error, std::move(message), 0,
                            std::nullopt};
}

actors::budget_ledger::exhausted spent_on(std::string key) {
    return {std::move(key), 10, "day", std::chrono::system_clock::time_point{}};
}

struct task_method_calls : test::stage_rig {
    fake_task_services services;
    test::unchanged_icons icons;
    task_methods tasks{{services, services, services, services, services.decision_hook(), icons}};

    json::object call(const std::string& method, json::object params = {{"taskId", "t-1"}}) {
        ctx.message.id = 7;
        ctx.method = method;
        return finish(tasks.task_call(ctx.message.id, method, std::move(params), ctx));
    }
    static int code_of(const json::object& answer) {
        const auto* e = answer.if_contains("error");
        return e ? static_cast<int>(e->at("code").as_int64()) : 0;
    }
    void as(std::string subject) {
        ctx.who.caller =
            std::make_shared<const principal>(principal{std::move(subject), "idp", {}, {}});
    }
    std::string owner_key() const { return std::to_string(task_owner_key(ctx)); }
    // alice may use tasks (a grant of tools/call) on `servers`; nobody else anywhere.
    void with_policy(std::vector<std::string> servers) {
        config::policy p;
        config::rule r;
        r.id = "alice-tasks";
        r.subjects = config::subjects{};
        r.subjects->subs = {"alice"};
        for (auto& s : servers)
            r.allow.push_back({s, {"tools/call"}, {}});
        p.rules.push_back(r);
        doc->policy = p;
        fresh();
    }
    // The caller is in tenant acme, which sees `upstreams`.
    void in_tenant(std::vector<std::string> upstreams) {
        config::tenant t;
        t.id = "acme";
        t.subjects.subs = {"alice"};
        t.upstreams = std::move(upstreams);
        doc->tenants.push_back(t);
        fresh();
        ctx.who.tenant = "acme";
        ctx.who.tenant_index = 0;
    }
    // A third upstream, up-c (namespace c).
    void with_third_upstream() {
        config::upstream u = doc->upstreams[0];
        u.id = "up-c";
        u.namespace_ = "c";
        doc->upstreams.push_back(u);
        fresh();
    }
    // The record the fleet keeps of a task `principal` owns at `upstream`.
    static std::string fleet_record_of(std::uint64_t principal, const std::string& upstream) {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(principal));
        return std::string(hex) + " " + upstream;
    }
    // What a client sees for a task no upstream holds for it.
    json::object unknown_answer() {
        fake_task_services nobody;
        nobody.replies = {{0, upstream_message::of_text(no_such_task)},
                          {1, upstream_message::of_text(no_such_task)}};
        task_methods methods{{nobody, nobody, nobody, nobody, nullptr, icons}};
        request_context other;
        other.view = ctx.view;
        other.who.caller = ctx.who.caller;
        other.message.id = 7;
        return finish(methods.task_call(other.message.id, "tasks/get", {{"taskId", "t-1"}}, other));
    }
};

// -- the request -----------------------------------------------------------------------------

TEST_F(task_method_calls, a_tasks_method_gate_does_not_know_is_not_found) {
    auto answer = call("tasks/frobnicate");
    EXPECT_EQ(code_of(answer), ec::method_not_found);
    EXPECT_EQ(ctx.audit.error, "method not found: tasks/frobnicate");
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::error);
    EXPECT_TRUE(services.asked.empty()) << "nobody is asked";
}

TEST_F(task_method_calls, a_task_id_must_be_a_non_empty_string) {
    for (auto params : {json::object{}, json::object{{"taskId", ""}}, json::object{{"taskId", 5}},
                        json::object{{"taskId", nullptr}}}) {
        fresh();
        auto answer = call("tasks/get", params);
        EXPECT_EQ(code_of(answer), ec::invalid_params) << json::serialize(params);
        EXPECT_EQ(ctx.audit.error, "invalid params: taskId must be a non-empty string");
        EXPECT_TRUE(services.asked.empty()) << json::serialize(params);
    }
}

TEST_F(task_method_calls, a_keeper_that_does_not_answer_is_an_internal_error) {
    services.owner = std::nullopt;
    auto answer = call("tasks/get");
    EXPECT_EQ(code_of(answer), ec::internal_error);
    EXPECT_EQ(ctx.audit.error, "internal error: task keeper unavailable");
    EXPECT_EQ(services.asked, std::vector<std::string>{"find t-1 " + owner_key()});
}

// -- the owner ---------------------------------------------------------------------------------

TEST_F(task_method_calls, an_owned_task_goes_to_its_owner_as_the_clients_call) {
    as("alice");
    services.owner = actors::task_owner{actors::task_owner::kind::owned, "up-b"};
    auto answer = call("tasks/cancel");
    EXPECT_EQ(code_of(answer), 0);
    // The owner's answer goes back as it wrote it; the object is read only for its outcome.
    EXPECT_NE(ctx.answer.verbatim.find(R"("result")"), std::string::npos) << ctx.answer.verbatim;
    EXPECT_EQ(services.asked, (std::vector<std::string>{"find t-1 " + owner_key(), "charge 1",
                                                        "call 1 tasks/cancel (client)"}));
    ASSERT_EQ(services.calls.size(), 1u);
    EXPECT_EQ(services.calls[0].params, (json::object{{"taskId", "t-1"}}));
    EXPECT_EQ(ctx.upstream, "up-b");
    EXPECT_EQ(ctx.name, "t-1");
    EXPECT_EQ(ctx.answer.verbatim,
              R"({"jsonrpc":"2.0","id":7,"result":{"taskId":"t-1","status":"working"}})")
        << "the owner's answer, under the client's id";
    EXPECT_FALSE(ctx.policy.decision) << "no policy";
}

TEST_F(task_method_calls, an_owners_error_passes_through_and_its_failure_is_refused) {
    services.owner = actors::task_owner{actors::task_owner::kind::owned, "up-a"};
    services.replies = {{0, upstream_message::of_text(no_such_task)}};
    auto answer = call("tasks/result");
    EXPECT_EQ(code_of(answer), -32602) << "the owner's own error";
    EXPECT_EQ(ctx.answer.verbatim,
              R"({"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"no such task"}})");

    fresh();
    services.replies = {{0, down("refused")}};
    answer = call("tasks/result");
    EXPECT_EQ(code_of(answer), ec::upstream_unavailable);
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::upstream_down);
    EXPECT_EQ(ctx.upstream, "up-a");
}

// Egress is the judge's wherever a call's result reaches the client (client_bound): a task's
// result at tasks/result names its resource links' icons as gate rewrites them, and the text
// the client is sent is written again from it, the rest as the upstream wrote it.
TEST_F(task_method_calls, a_task_result_names_its_icons_as_gate_rewrites_them) {
    struct gate_icons final : pipeline::icon_rewriter {
        std::vector<std::string> asked;
        void rewrite_icons(const actors::snapshot&, std::size_t upstream, std::string_view what,
                           json::array& items) override {
            asked.push_back(std::to_string(upstream) + " " + std::string(what));
            for (auto& item : items)
                if (auto& o = item.as_object(); o.contains("icons"))
                    o["icons"] = json::array{json::object{{"src", "/icons/b/d"}}};
        }
    } rewriter;
    task_methods linking{{services, services, services, services, nullptr, rewriter}};
    services.owner = actors::task_owner{actors::task_owner::kind::owned, "up-b"};
    services.replies = {
        {1, upstream_message::of_text(R"({"jsonrpc":"2.0","id":41,"result":{"content":[)"
                                      R"({"type":"text","text":"t"},{"type":"resource_link",)"
                                      R"("uri":"file:///r","name":"r","icons":[{"src":)"
                                      R"("https://elsewhere.example/i.png"}]}],"n":1.50}})")}};
    ctx.message.id = 7;
    ctx.method = "tasks/result";
    finish(linking.task_call(ctx.message.id, "tasks/result", {{"taskId", "t-1"}}, ctx));
    EXPECT_EQ(rewriter.asked, std::vector<std::string>{"1 tasks/result"});
    EXPECT_EQ(ctx.answer.verbatim,
              R"({"jsonrpc":"2.0","id":7,"result":{"content":[)"
              R"({"type":"text","text":"t"},{"type":"resource_link",)"
              R"("uri":"file:///r","name":"r","icons":[{"src":"/icons/b/d"}]}],)"
              R"("n":1.50}})");

    fresh(); // an answer that names no icons is never read for them
    rewriter.asked.clear();
    services.replies = {
        {1, upstream_message::of_text(R"({"jsonrpc":"2.0","id":41,"result":{"content":[]}})")}};
    finish(linking.task_call(ctx.message.id, "tasks/result", {{"taskId", "t-1"}}, ctx));
    EXPECT_TRUE(rewriter.asked.empty());
}

TEST_F(task_method_calls, another_principals_task_is_answered_as_one_nobody_minted) {
    as("alice");
    auto nobody_minted = unknown_answer();
    services.owner = actors::task_owner{actors::task_owner::kind::foreign, {}};
    auto answer = call("tasks/get");
    EXPECT_EQ(code_of(answer), ec::unknown_task);
    EXPECT_EQ(answer, nobody_minted) << "no existence leak";
    EXPECT_EQ(ctx.audit.error, "unknown task: t-1 (no upstream holds it for this caller)");
    EXPECT_EQ(services.asked, std::vector<std::string>{"find t-1 " + owner_key()})
        << "no probe, no charge, no call";
}

TEST_F(task_method_calls, a_fleet_record_of_another_principal_is_an_unknown_task) {
    as("bob");
    services.record = fleet_record_of(task_owner_key(ctx), "up-a"); // bob's task
    as("alice");
    auto answer = call("tasks/get");
    EXPECT_EQ(code_of(answer), ec::unknown_task);
    EXPECT_EQ(services.asked,
              (std::vector<std::string>{"find t-1 " + owner_key(), "fleet_record t-1"}))
        << "nothing pinned, nothing probed or called";
}

TEST_F(task_method_calls, a_fleet_record_of_the_callers_task_is_pinned_and_called) {
    as("alice");
    services.record = fleet_record_of(task_owner_key(ctx), "up-b");
    auto answer = call("tasks/get");
    EXPECT_EQ(code_of(answer), 0);
    EXPECT_EQ(services.asked,
              (std::vector<std::string>{"find t-1 " + owner_key(), "fleet_record t-1",
                                        "pin t-1 " + owner_key() + " up-b", "charge 1",
                                        "call 1 tasks/get (client)"}));
    EXPECT_EQ(ctx.upstream, "up-b");
}

TEST_F(task_method_calls, a_located_fleet_record_is_told_the_keeper_and_called) {
    services.record = "---------------- up-a";
    auto answer = call("tasks/update", {{"taskId", "t-1"}, {"input", 1}});
    EXPECT_EQ(code_of(answer), 0);
    EXPECT_EQ(services.asked, (std::vector<std::string>{
                                  "find t-1 " + owner_key(), "fleet_record t-1", "locate t-1 up-a",
                                  "charge 0", "call 0 tasks/update (client)"}));
    ASSERT_EQ(services.calls.size(), 1u);
    EXPECT_EQ(services.calls[0].params, (json::object{{"taskId", "t-1"}, {"input", 1}}));
}

TEST_F(task_method_calls, a_located_keeper_record_is_called_without_a_probe) {
    services.owner = actors::task_owner{actors::task_owner::kind::located, "up-b"};
    EXPECT_EQ(code_of(call("tasks/get")), 0);
    EXPECT_EQ(services.asked, (std::vector<std::string>{"find t-1 " + owner_key(), "charge 1",
                                                        "call 1 tasks/get (client)"}));
}

TEST_F(task_method_calls, a_record_of_an_upstream_this_view_lost_is_probed_for) {
    services.owner = actors::task_owner{actors::task_owner::kind::owned, "up-gone"};
    services.replies = {{0, upstream_message::of_text(no_such_task)}};
    auto answer = call("tasks/get");
    EXPECT_EQ(code_of(answer), 0);
    auto calls = services.calls_by_upstream();
    ASSERT_EQ(calls.size(), 2u) << "both probed, nobody called again";
    EXPECT_FALSE(calls[0].client_call);
    EXPECT_FALSE(calls[1].client_call);
    EXPECT_EQ(ctx.upstream, "up-b");
}

// -- the probe ---------------------------------------------------------------------------------

TEST_F(task_method_calls, a_probe_asks_only_the_upstreams_the_tenant_sees_and_the_policy_allows) {
    with_third_upstream();
    with_policy({"up-a", "up-b"}); // not up-c
    in_tenant({"up-b", "up-c"});   // not up-a
    as("alice");
    auto answer = call("tasks/get");
    EXPECT_EQ(code_of(answer), 0);
    ASSERT_EQ(services.calls.size(), 1u);
    EXPECT_EQ(services.calls[0].upstream, 1u);
    EXPECT_EQ(services.calls[0].method, "tasks/get");
    EXPECT_EQ(services.calls[0].params, (json::object{{"taskId", "t-1"}}));
    EXPECT_FALSE(services.calls[0].client_call) << "a probe is gate's own";
    EXPECT_EQ(services.asked_to("charge"), 1u) << "only up-b charged";
    EXPECT_TRUE(services.was_asked("charge 1"));
}

TEST_F(task_method_calls, a_probe_that_answers_tasks_get_carries_the_policys_decision) {
    with_policy({"up-a", "up-b"});
    as("alice");
    services.replies = {{0, upstream_message::of_text(no_such_task)}};
    EXPECT_EQ(code_of(call("tasks/get")), 0);
    EXPECT_EQ(ctx.upstream, "up-b");
    EXPECT_EQ(ctx.policy.decision, "allow") << "the audit event says the policy allowed it";
    EXPECT_EQ(ctx.policy.rule_id, "alice-tasks");
}

TEST_F(task_method_calls, a_probes_answer_to_tasks_get_is_the_answer) {
    services.replies = {{0, upstream_message::of_text(no_such_task)}};
    auto answer = call("tasks/get");
    EXPECT_EQ(code_of(answer), 0);
    auto calls = services.calls_by_upstream();
    ASSERT_EQ(calls.size(), 2u) << "the two probes and no second call";
    EXPECT_EQ(calls[0].upstream, 0u);
    EXPECT_EQ(calls[1].upstream, 1u);
    EXPECT_FALSE(calls[0].client_call);
    EXPECT_FALSE(calls[1].client_call);
    EXPECT_EQ(ctx.upstream, "up-b");
    EXPECT_EQ(ctx.answer.verbatim,
              R"({"jsonrpc":"2.0","id":7,"result":{"taskId":"t-1","status":"working"}})");
    EXPECT_TRUE(services.was_asked("locate t-1 up-b"));
    EXPECT_TRUE(services.was_asked("put_fleet_record t-1 ---------------- up-b"))
        << "located, for the fleet, owned by nobody";
    EXPECT_EQ(services.asked_to("pin"), 0u) << "a probe never takes ownership";
}

TEST_F(task_method_calls, another_method_goes_to_the_holder_a_probe_found_after_the_guards) {
    services.replies = {{1, upstream_message::of_text(no_such_task)}};
    auto answer = call("tasks/cancel");
    EXPECT_EQ(code_of(answer), 0);
    ASSERT_EQ(services.calls.size(), 3u);
    EXPECT_EQ(services.calls[2].upstream, 0u);
    EXPECT_EQ(services.calls[2].method, "tasks/cancel");
    EXPECT_TRUE(services.calls[2].client_call);
    EXPECT_EQ(services.asked_to("charge"), 3u) << "each probe, then the call";
    auto locate = std::find(services.asked.begin(), services.asked.end(), "locate t-1 up-a");
    auto guarded = std::find(locate, services.asked.end(), "charge 0");
    auto called = std::find(guarded, services.asked.end(), "call 0 tasks/cancel (client)");
    EXPECT_NE(called, services.asked.end()) << "found, charged, then called";
    EXPECT_EQ(ctx.upstream, "up-a");
}

TEST_F(task_method_calls, a_task_nobody_holds_is_unknown) {
    services.replies = {{0, upstream_message::of_text(no_such_task)}, {1, down("refused")}};
    auto answer = call("tasks/cancel");
    EXPECT_EQ(code_of(answer), ec::unknown_task);
    EXPECT_EQ(ctx.audit.error, "unknown task: t-1 (no upstream holds it for this caller)");
    EXPECT_EQ(services.calls.size(), 2u) << "the probes only";
    EXPECT_EQ(services.asked_to("locate"), 0u);
    EXPECT_EQ(services.asked_to("put_fleet_record"), 0u);
}

// -- the guards --------------------------------------------------------------------------------

TEST_F(task_method_calls, the_policy_decides_at_the_owner) {
    with_policy({"up-b"});
    as("alice");
    services.owner = actors::task_owner{actors::task_owner::kind::owned, "up-a"};
    auto answer = call("tasks/get");
    EXPECT_EQ(code_of(answer), ec::policy_denied);
    EXPECT_EQ(ctx.policy.decision, "deny");
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::denied);
    EXPECT_EQ(ctx.audit.error, "policy denied tasks/get of t-1 on up-a for alice");
    EXPECT_EQ(services.asked_to("charge"), 0u);
    EXPECT_TRUE(services.calls.empty());

    fresh();
    as("alice");
    services.owner = actors::task_owner{actors::task_owner::kind::owned, "up-b"};
    EXPECT_EQ(code_of(call("tasks/get")), 0);
    EXPECT_EQ(ctx.policy.decision, "allow");
    EXPECT_EQ(ctx.policy.rule_id, "alice-tasks");
}

TEST_F(task_method_calls, a_spent_budget_at_the_owner_refuses_the_call) {
    services.owner = actors::task_owner{actors::task_owner::kind::owned, "up-b"};
    services.spent = {{1, spent_on("upstream up-b")}};
    auto answer = call("tasks/get");
    EXPECT_EQ(code_of(answer), ec::budget_exhausted);
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::budget_exhausted);
    ASSERT_TRUE(ctx.audit.error);
    EXPECT_TRUE(
        ctx.audit.error->starts_with("budget exhausted: 10 upstream calls per day for upstream "
                                     "up-b"))
        << *ctx.audit.error;
    EXPECT_TRUE(services.calls.empty());
}

TEST_F(task_method_calls, an_owner_the_tenant_does_not_see_holds_no_task_of_the_callers) {
    in_tenant({"up-b"});
    as("alice");
    services.owner = actors::task_owner{actors::task_owner::kind::owned, "up-a"};
    auto answer = call("tasks/get");
    EXPECT_EQ(code_of(answer), ec::unknown_task);
    EXPECT_EQ(ctx.audit.error, "unknown task: t-1 (no upstream holds it for this caller)");
    EXPECT_EQ(services.asked_to("charge"), 0u);
    EXPECT_TRUE(services.calls.empty());
}

// -- the reach ---------------------------------------------------------------------------------

TEST_F(task_method_calls, an_upstream_over_its_own_budget_is_left_out_of_a_probe) {
    services.spent = {{0, spent_on("upstream up-a")}};
    auto answer = call("tasks/get");
    EXPECT_EQ(code_of(answer), 0);
    ASSERT_EQ(services.calls.size(), 1u);
    EXPECT_EQ(services.calls[0].upstream, 1u);
}

TEST_F(task_method_calls, a_spent_server_or_tenant_budget_refuses_the_whole_request) {
    for (auto key : {"server", "tenant acme"}) {
        fresh();
        services.spent = {{0, spent_on(key)}};
        auto answer = call("tasks/get");
        EXPECT_EQ(code_of(answer), ec::budget_exhausted) << key;
        EXPECT_EQ(ctx.audit.outcome, protocol::outcome::budget_exhausted);
        EXPECT_TRUE(services.calls.empty()) << key << ": nothing probed";
        EXPECT_FALSE(services.was_asked("charge 1")) << key << ": refused at the first";

        fresh();
        services.spent = {{0, spent_on(key)}};
        answer = call("tasks/list", {});
        EXPECT_EQ(code_of(answer), ec::budget_exhausted) << key;
        EXPECT_EQ(services.asked_to("fetch_tasks"), 0u) << key;
        EXPECT_EQ(services.asked_to("page"), 0u) << key;
    }
}

// -- tasks/list --------------------------------------------------------------------------------

TEST_F(task_method_calls, a_list_cursor_must_be_a_string) {
    auto answer = call("tasks/list", {{"cursor", 5}});
    EXPECT_EQ(code_of(answer), ec::invalid_params);
    EXPECT_EQ(ctx.audit.error, "invalid cursor: not a string");
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(task_method_calls, a_list_every_reached_upstream_fails_is_refused) {
    services.lists = {{0, down("a is down")}, {1, down("b is down")}};
    auto answer = call("tasks/list", {});
    EXPECT_EQ(code_of(answer), ec::upstream_unavailable);
    EXPECT_EQ(ctx.audit.error, "all upstreams are unavailable");
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::upstream_down);
    EXPECT_EQ(services.asked_to("page"), 0u);
}

TEST_F(task_method_calls, the_upstreams_lists_are_merged_and_paged_with_the_cursor) {
    services.lists = {
        {0, json::array{json::object{{"taskId", "t-2"}}, json::object{{"taskId", "t-0"}}}},
        {1, json::array{json::object{{"taskId", "t-1"}}}}};
    services.page_answer = actors::list_answer{
        protocol::list_kind::tasks, std::make_shared<const std::string>(R"([{"taskId":"t-0"}])"),
        "next-1", 1};
    auto answer = call("tasks/list", {{"cursor", "c-1"}});
    EXPECT_EQ(code_of(answer), 0);
    EXPECT_EQ(services.cursor, "c-1");
    ASSERT_TRUE(services.merged);
    EXPECT_EQ(*services.merged,
              json::parse(R"([{"taskId":"t-0"},{"taskId":"t-1"},{"taskId":"t-2"}])"))
        << "merged by task id";
    EXPECT_EQ(ctx.audit.upstream_calls, 2);
    EXPECT_EQ(ctx.audit.items_served, 1);
    EXPECT_EQ(ctx.answer.verbatim,
              R"({"jsonrpc":"2.0","id":7,"result":{"tasks":[{"taskId":"t-0"}],)"
              R"("nextCursor":"next-1"}})");
}

TEST_F(task_method_calls, a_list_upstream_that_fails_is_left_out) {
    services.lists = {{0, down("a is down")}, {1, json::array{json::object{{"taskId", "t-1"}}}}};
    auto answer = call("tasks/list", {});
    EXPECT_EQ(code_of(answer), 0);
    EXPECT_FALSE(services.cursor) << "none given";
    ASSERT_TRUE(services.merged);
    EXPECT_EQ(*services.merged, json::parse(R"([{"taskId":"t-1"}])"));
}

TEST_F(task_method_calls, a_list_reaches_only_what_the_tenant_sees) {
    in_tenant({"up-b"});
    as("alice");
    EXPECT_EQ(code_of(call("tasks/list", {})), 0);
    EXPECT_EQ(services.asked, (std::vector<std::string>{"charge 1", "fetch_tasks 1", "page"}));
}

// -- a minted task -----------------------------------------------------------------------------

TEST_F(task_method_calls, a_minted_task_is_pinned_and_recorded_for_the_fleet) {
    as("alice");
    finish(tasks.pin_task(ctx, 1, "t-9"));
    ASSERT_EQ(services.asked.size(), 2u);
    EXPECT_EQ(services.asked[0], "pin t-9 " + owner_key() + " up-b");
    const std::string prefix = "put_fleet_record t-9 ";
    ASSERT_TRUE(services.asked[1].starts_with(prefix)) << services.asked[1];
    auto record = services.asked[1].substr(prefix.size());
    ASSERT_EQ(record.size(), 16u + 1 + 4) << record;
    EXPECT_EQ(record.substr(16), " up-b");
    auto hex = record.substr(0, 16);
    EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos) << hex;
    EXPECT_EQ(std::strtoull(hex.c_str(), nullptr, 16), task_owner_key(ctx));
}

} // namespace
} // namespace gate::gateway
