// Stage 6, the upstream guards (gateway/pipeline/s6_upstream_guards.hpp), with the real
// upstream guards of the request's view and budgets reserved from a fake source: a named call
// admitted goes on with its ticket; an open circuit answers -32041 and an upstream's own rate
// limit -32040, each counted as a call that never left; a spent budget answers -32044; a list
// leaves out an upstream its guards or its own budget refuse, and the server's budget answers
// the whole list.
#include "actors/federation/upstream_actor.hpp"
#include "actors/message_types.hpp"
#include "gateway/pipeline/request_guards.hpp"
#include "gateway/pipeline/s6_upstream_guards.hpp"
#include "tests/support/guard_views.hpp"
#include "tests/unit/stage_rig.hpp"

#include <caf/all.hpp>
#include <map>
#include <string>
#include <vector>

namespace gate::gateway::pipeline {
namespace {

using namespace std::chrono_literals;

// Reserves what it is told per account (nothing told: no answer) after suspending once.
struct fake_budgets final : budget_source {
    std::map<std::string, std::int64_t> grants; // by account key
    std::vector<std::string> asked;

    boost::asio::awaitable<std::optional<std::int64_t>>
    reserve(const actors::budget_ledger::account_ref& account, actors::wall_time) override {
        asked.push_back(account.key);
        co_await test::suspend_once();
        auto it = grants.find(account.key);
        co_return it == grants.end() ? std::nullopt : std::optional<std::int64_t>(it->second);
    }
};

// No limiter: no tool limit applies (s6_tool_limits is tested in tool_limits_test.cpp).
struct no_tool_limits final : tool_limit_services {
    bool limiting() const override { return false; }
    boost::asio::awaitable<std::optional<batch>> take_shared(const std::string&, std::int64_t,
                                                             const actors::slot_demand&) override {
        co_return std::nullopt;
    }
    boost::asio::awaitable<std::optional<batch>> take_tool(const std::string&, const std::string&,
                                                           std::int64_t,
                                                           const actors::slot_demand&) override {
        co_return std::nullopt;
    }
};

struct stage_upstream_guards : test::stage_rig {
    fake_budgets source;
    budget_charger budgets{source};
    metrics stats;
    no_tool_limits tools;
    lease_table tool_leases;
    actors::actor_directory directory;
    request_guards admissions{directory}; // the real guards of the request's view
    std::unique_ptr<stage> guards =
        make_upstream_guards({admissions, budgets, stats, tools, tool_leases});

    caf::actor_system_config sys_cfg;
    std::optional<caf::actor_system> sys;
    actors::upstream_actor actor;

    void TearDown() override {
        if (actor)
            caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    }

    ran call(std::size_t upstream = 0) {
        ctx.method = "tools/call";
        ctx.message.id = 5;
        ctx.routed.target = actors::route{upstream, {}, "a__echo"};
        ctx.answer.response.reset();
        ctx.guards.admitted.reset();
        return drive(guards->run(ctx));
    }
    ran list() {
        ctx.method = "tools/list";
        ctx.message.id = 6;
        ctx.routed.plan = actors::list_plan{};
        ctx.routed.plan->fetch = {0, 1};
        ctx.guards.list_admitted.clear();
        return drive(guards->run(ctx));
    }
    void open_circuit(std::size_t upstream) {
        auto& client = *ctx.view->made(upstream);
        auto v = actors::guard_board::initial_view(client.config());
        v.breaker = actors::circuit_breaker::state::open;
        v.reopens_at = std::chrono::steady_clock::now() + 30s;
        test::publish_view(*client.guards().board(), std::move(v));
    }
    // The first upstream's real actor, which keeps its rate window.
    void actor_for_first() {
        sys_cfg.set("logger.verbosity", caf::atom("quiet"));
        actors::add_message_types(sys_cfg);
        sys.emplace(sys_cfg);
        actor = spawn_upstream_actor(*sys, ctx.view->board(0));
    }
    void budget(std::optional<config::budget>& where, std::int64_t calls) {
        where = config::budget{"day", calls};
        load();
    }
    std::int64_t code() const { return ctx.answer.response->at("error").at("code").as_int64(); }
    // gate_upstream_requests_total for the upstream and outcome (0: no such series).
    std::string refused_count(const std::string& upstream, const std::string& outcome) const {
        auto text = stats.serialize();
        std::size_t at = 0;
        while ((at = text.find("gate_upstream_requests_total{", at)) != std::string::npos) {
            auto end = text.find('\n', at);
            auto line = text.substr(at, end - at);
            at = end;
            if (line.find("upstream=\"" + upstream + "\"") != std::string::npos &&
                line.find("outcome=\"" + outcome + "\"") != std::string::npos)
                return line.substr(line.rfind(' ') + 1);
        }
        return "0";
    }
};

TEST_F(stage_upstream_guards, is_the_upstream_guards_stage) {
    EXPECT_EQ(guards->id(), gateway::stage::upstream_guards);
}

TEST_F(stage_upstream_guards, a_request_with_no_upstream_goes_on) {
    ctx.method = "initialize";
    auto r = drive(guards->run(ctx));
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    EXPECT_FALSE(ctx.guards.admitted);
}

TEST_F(stage_upstream_guards, a_closed_circuit_admits_at_once_with_a_ticket) {
    auto r = call();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    EXPECT_TRUE(ctx.guards.admitted);
    EXPECT_FALSE(ctx.answer.response);
    EXPECT_TRUE(source.asked.empty()) << "no budgets configured";
}

TEST_F(stage_upstream_guards, an_open_circuit_answers_32041_and_counts_the_call) {
    open_circuit(0);
    auto r = call();
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_TRUE(r.at_once);
    ASSERT_TRUE(ctx.answer.response);
    EXPECT_EQ(code(), -32041);
    EXPECT_EQ(ctx.answer.response->at("id"), 5);
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::upstream_down);
    EXPECT_FALSE(ctx.guards.admitted);
    EXPECT_EQ(refused_count("up-a", "circuit_open"), "1");
}

TEST_F(stage_upstream_guards, the_upstreams_own_rate_limit_answers_32040) {
    doc->upstreams[0].rate_limit = config::rate_limit{2};
    load();
    actor_for_first();
    for (int i = 0; i < 2; ++i)
        EXPECT_EQ(call().verdict, verdict::proceed) << "slot " << i;
    auto r = call();
    EXPECT_EQ(r.verdict, verdict::answered);
    ASSERT_TRUE(ctx.answer.response);
    EXPECT_EQ(code(), -32040);
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::rate_limited);
    EXPECT_NE(ctx.audit.error->find("rate limit of 2 requests per minute"), std::string::npos)
        << *ctx.audit.error;
    EXPECT_EQ(refused_count("up-a", "rate_limited"), "1");
}

// A resources/(un)subscribe at a 2026-07-28 upstream is held in gate's own listen, which
// admits itself: no ticket, and stage 7 is told; at an earlier upstream it is a
// call like any other.
TEST_F(stage_upstream_guards, a_subscription_held_in_gates_listen_takes_no_admission) {
    doc->upstreams[1].protocol = config::protocol_mode::v2026_07_28;
    load();
    for (auto m : {"resources/subscribe", "resources/unsubscribe"}) {
        ctx.guards = {};
        ctx.method = m;
        ctx.routed.target = actors::route{1, {}, "file:///x"};
        auto r = drive(guards->run(ctx));
        EXPECT_EQ(r.verdict, verdict::proceed) << m;
        EXPECT_TRUE(r.at_once) << m;
        EXPECT_TRUE(ctx.guards.through_listen) << m;
        EXPECT_FALSE(ctx.guards.admitted) << m;
    }
    ctx.guards = {};
    ctx.method = "resources/subscribe";
    ctx.routed.target = actors::route{0, {}, "file:///x"};
    EXPECT_EQ(drive(guards->run(ctx)).verdict, verdict::proceed);
    EXPECT_FALSE(ctx.guards.through_listen);
    EXPECT_TRUE(ctx.guards.admitted) << "a 2025-11-25 upstream's subscription is a call";
}

TEST_F(stage_upstream_guards, a_budget_is_reserved_once_then_charged_at_once) {
    budget(doc->server.budget, 100);
    source.grants["server"] = 2;
    auto first = call();
    EXPECT_EQ(first.verdict, verdict::proceed);
    EXPECT_FALSE(first.at_once) << "the reservation was waited for";
    EXPECT_TRUE(ctx.guards.admitted);
    auto second = call();
    EXPECT_EQ(second.verdict, verdict::proceed);
    EXPECT_TRUE(second.at_once) << "charged from the reservation";
    EXPECT_EQ(source.asked, (std::vector<std::string>{"server"}));
}

TEST_F(stage_upstream_guards, a_spent_budget_answers_32044_naming_its_reset) {
    budget(doc->upstreams[0].budget, 10);
    source.grants["upstream up-a"] = 0; // the allowance is spent
    auto r = call();
    EXPECT_EQ(r.verdict, verdict::answered);
    ASSERT_TRUE(ctx.answer.response);
    EXPECT_EQ(code(), -32044);
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::budget_exhausted);
    EXPECT_NE(ctx.audit.error->find("10 upstream calls per day for upstream up-a; it resets at"),
              std::string::npos)
        << *ctx.audit.error;
    EXPECT_FALSE(ctx.guards.admitted) << "the ticket is dropped unused";
    auto again = call();
    EXPECT_EQ(again.verdict, verdict::answered);
    EXPECT_TRUE(again.at_once) << "refused from the ledger, unasked";
}

TEST_F(stage_upstream_guards, a_budget_source_that_does_not_answer_lets_the_call_through) {
    budget(doc->server.budget, 10);
    auto r = call();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(ctx.guards.admitted);
}

TEST_F(stage_upstream_guards, a_list_admits_each_upstream_and_leaves_out_a_refused_one) {
    open_circuit(0);
    auto r = list();
    EXPECT_EQ(r.verdict, verdict::proceed);
    ASSERT_EQ(ctx.guards.list_admitted.size(), 2u);
    EXPECT_FALSE(ctx.guards.list_admitted[0]) << "up-a's circuit is open";
    EXPECT_TRUE(ctx.guards.list_admitted[1]);
    EXPECT_FALSE(ctx.answer.response);
    EXPECT_EQ(refused_count("up-a", "circuit_open"), "1");
}

TEST_F(stage_upstream_guards, a_list_leaves_out_an_upstream_whose_own_budget_is_spent) {
    budget(doc->upstreams[1].budget, 10);
    source.grants["upstream up-b"] = 0;
    auto r = list();
    EXPECT_EQ(r.verdict, verdict::proceed);
    ASSERT_EQ(ctx.guards.list_admitted.size(), 2u);
    EXPECT_TRUE(ctx.guards.list_admitted[0]);
    EXPECT_FALSE(ctx.guards.list_admitted[1]);
    EXPECT_FALSE(ctx.answer.response);
}

TEST_F(stage_upstream_guards, the_servers_spent_budget_answers_the_whole_list) {
    budget(doc->server.budget, 10);
    source.grants["server"] = 0;
    auto r = list();
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_TRUE(ctx.guards.list_admitted.empty());
    ASSERT_TRUE(ctx.answer.response);
    EXPECT_EQ(code(), -32044);
    EXPECT_EQ(ctx.answer.response->at("id"), 6);
    EXPECT_NE(ctx.audit.error->find("for the server"), std::string::npos) << *ctx.audit.error;
}

} // namespace
} // namespace gate::gateway::pipeline
