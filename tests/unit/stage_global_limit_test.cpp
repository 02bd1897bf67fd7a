// Stage 3, the rate limits, with a fake limiter and fleet store (gateway/pipeline/
// s3_global_limit.hpp): without a limiter or limits every request goes on; a window with
// slots leased spends one at once; an empty lease asks the fleet's store first, then the
// limiter, one ask at a time; each window over its limit is answered 429 with Retry-After;
// a limiter that does not answer lets the request through; a reload's revoke drops the slots.
#include "gateway/pipeline/s3_global_limit.hpp"
#include "tests/unit/stage_rig.hpp"

#include <boost/asio/detached.hpp>
#include <boost/json/parse.hpp>
#include <map>
#include <string>
#include <vector>

namespace gate::gateway::pipeline {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using batch = global_limit_services::batch;

batch granted(std::int64_t n) {
    return {n, 0ms, std::chrono::steady_clock::now() + 1h};
}
batch refused_for(std::chrono::milliseconds wait) {
    return {0, wait, {}};
}

// Answers each window as told (nothing told: no answer) after suspending once, and notes
// what it was asked: "shared <scope> <limit>", "local <window> <key> <limit>".
struct fake_limiter final : global_limit_services {
    bool up = true;
    std::map<std::string, batch> shared, local; // by scope; by "<window> <key>"
    std::vector<std::string> asked;

    bool limiting() const override { return up; }
    boost::asio::awaitable<std::optional<batch>> take_shared(const std::string& scope,
                                                             std::int64_t per_minute,
                                                             const actors::slot_demand&) override {
        asked.push_back("shared " + scope + " " + std::to_string(per_minute));
        co_await test::suspend_once();
        co_return answer(shared, scope);
    }
    boost::asio::awaitable<std::optional<batch>> take_local(limit_window window,
                                                            const std::string& key,
                                                            std::int64_t per_minute,
                                                            const actors::slot_demand&) override {
        static constexpr const char* names[] = {"global", "tenant", "principal"};
        auto name = std::string(names[static_cast<int>(window)]) + " " + key;
        asked.push_back("local " + name + " " + std::to_string(per_minute));
        co_await test::suspend_once();
        co_return answer(local, name);
    }
    static std::optional<batch> answer(const std::map<std::string, batch>& told,
                                       const std::string& key) {
        auto it = told.find(key);
        return it == told.end() ? std::nullopt : std::optional<batch>(it->second);
    }
};

struct stage_global_limit : test::stage_rig {
    fake_limiter limiter;
    limit_leases leases;
    std::unique_ptr<stage> limits = make_global_limit(limiter, leases);
    policy::caller_ref alice =
        std::make_shared<const principal>(principal{"alice", "https://idp", {}, {}});
    std::string alice_key = principal_key(alice);

    void SetUp() override {
        doc->server.rate_limit = config::server_rate_limit{60, std::nullopt};
        load();
    }
    // Server limits, a tenant "acme" with its own, and the caller alice placed in it.
    void every_window() {
        doc->server.rate_limit = config::server_rate_limit{60, 5};
        config::tenant acme;
        acme.id = "acme";
        acme.subjects.subs = {"alice"};
        acme.rate_limit = config::rate_limit{10};
        doc->tenants.push_back(acme);
        load();
        ctx.who.caller = alice;
        ctx.who.tenant = "acme";
        ctx.who.tenant_index = 0;
    }
    ran run() {
        ctx.answer.refusal_reply.reset();
        return drive(limits->run(ctx));
    }
    std::string retry_after() const {
        for (const auto& [name, value] : ctx.answer.refusal_reply->headers)
            if (name == "Retry-After")
                return value;
        return "(none)";
    }
    void expect_429(const std::string& why, const std::string& seconds) {
        ASSERT_TRUE(ctx.answer.refusal_reply);
        EXPECT_EQ(static_cast<int>(ctx.answer.refusal_reply->status), 429);
        EXPECT_EQ(retry_after(), seconds);
        auto text = "rate limited: " + why + "; retry in " + seconds + " s";
        EXPECT_EQ(std::string(json::parse(ctx.answer.refusal_reply->body).at("error").as_string()),
                  text);
        EXPECT_EQ(ctx.audit.error, text);
        EXPECT_EQ(ctx.audit.outcome, protocol::outcome::rate_limited);
        EXPECT_EQ(ctx.answer.rejection, "rate_limited");
    }
};

TEST_F(stage_global_limit, is_the_global_limit_stage) {
    EXPECT_EQ(limits->id(), gateway::stage::global_limit);
}

TEST_F(stage_global_limit, without_a_limiter_every_request_goes_on_unasked) {
    limiter.up = false;
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    EXPECT_TRUE(limiter.asked.empty());
}

TEST_F(stage_global_limit, without_limits_every_request_goes_on_unasked) {
    doc->server.rate_limit.reset();
    load();
    ctx.who.caller = alice;
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    EXPECT_TRUE(limiter.asked.empty());
}

TEST_F(stage_global_limit, an_empty_lease_asks_for_a_batch_then_spends_it_at_once) {
    limiter.local["global "] = granted(3);
    auto first = run();
    EXPECT_EQ(first.verdict, verdict::proceed);
    EXPECT_FALSE(first.at_once);
    EXPECT_EQ(limiter.asked, (std::vector<std::string>{"shared global 60", "local global  60"}));
    for (int i = 0; i < 2; ++i) {
        auto next = run();
        EXPECT_EQ(next.verdict, verdict::proceed);
        EXPECT_TRUE(next.at_once) << "the batch's slot " << i;
    }
    EXPECT_EQ(limiter.asked.size(), 2u);
    EXPECT_FALSE(run().at_once) << "the batch is spent: the next asks again";
}

TEST_F(stage_global_limit, requests_waiting_together_share_one_ask) {
    limiter.local["global "] = granted(2);
    request_context other = ctx;
    std::vector<verdict> verdicts;
    for (auto* c : {&ctx, &other}) {
        auto s = limits->run(*c);
        ASSERT_FALSE(s.ready());
        boost::asio::co_spawn(
            io,
            [](step s, std::vector<verdict>& out) -> boost::asio::awaitable<void> {
                out.push_back(co_await s.take());
            }(std::move(s), verdicts),
            boost::asio::detached);
    }
    io.run();
    EXPECT_EQ(verdicts, (std::vector<verdict>{verdict::proceed, verdict::proceed}));
    EXPECT_EQ(limiter.asked.size(), 2u) << "one flight: the store, then the limiter";
}

TEST_F(stage_global_limit, the_global_window_over_its_limit_answers_429) {
    limiter.local["global "] = refused_for(1500ms);
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::answered);
    expect_429("global rate limit of 60 requests per minute reached", "2");
}

TEST_F(stage_global_limit, the_tenants_window_over_its_limit_answers_429) {
    every_window();
    limiter.local["global "] = granted(100);
    limiter.local["tenant acme"] = refused_for(200ms);
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::answered);
    expect_429("rate limit of 10 requests per minute for tenant acme reached", "1");
    EXPECT_EQ(limiter.asked.back(), "local tenant acme 10");
}

TEST_F(stage_global_limit, the_principals_window_over_its_limit_answers_429) {
    every_window();
    limiter.local["global "] = granted(100);
    limiter.local["tenant acme"] = granted(100);
    limiter.local["principal " + alice_key] = refused_for(61s);
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::answered);
    expect_429("rate limit of 5 requests per minute for alice reached", "61");
    EXPECT_EQ(limiter.asked.back(), "local principal " + alice_key + " 5");
}

TEST_F(stage_global_limit, only_the_windows_without_slots_wait_in_order) {
    every_window();
    limiter.local["global "] = granted(100);
    limiter.local["tenant acme"] = granted(1);
    limiter.local["principal " + alice_key] = granted(100);
    EXPECT_EQ(run().verdict, verdict::proceed);
    limiter.asked.clear();
    limiter.local["tenant acme"] = granted(100);
    // The tenant's one slot went to the first request: only its window (and the ones after
    // it, with it) waits.
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_FALSE(r.at_once);
    EXPECT_EQ(limiter.asked,
              (std::vector<std::string>{"shared tenant:acme 10", "local tenant acme 10"}));
    EXPECT_TRUE(run().at_once) << "nothing left to ask for while every lease holds slots";
}

TEST_F(stage_global_limit, an_anonymous_caller_has_no_window_of_its_own) {
    every_window();
    ctx.who.caller.reset();
    ctx.who.tenant.reset();
    ctx.who.tenant_index.reset();
    limiter.local["global "] = granted(100);
    EXPECT_EQ(run().verdict, verdict::proceed);
    EXPECT_EQ(limiter.asked, (std::vector<std::string>{"shared global 60", "local global  60"}));
}

TEST_F(stage_global_limit, a_limiter_that_does_not_answer_lets_the_request_through) {
    auto r = run(); // neither the store nor the limiter answers
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_FALSE(ctx.answer.refusal_reply);
    EXPECT_FALSE(run().at_once) << "nothing was granted: the next request asks again";
}

TEST_F(stage_global_limit, the_fleets_store_answers_first_and_the_limiter_is_not_asked) {
    every_window();
    limiter.shared["global"] = granted(100);
    limiter.shared["tenant:acme"] = granted(100);
    limiter.shared["principal:" + alice_key] = granted(100);
    EXPECT_EQ(run().verdict, verdict::proceed);
    EXPECT_EQ(limiter.asked, (std::vector<std::string>{"shared global 60", "shared tenant:acme 10",
                                                       "shared principal:" + alice_key + " 5"}));
}

TEST_F(stage_global_limit, the_fleets_refusal_is_the_answer) {
    limiter.shared["global"] = refused_for(3s);
    EXPECT_EQ(run().verdict, verdict::answered);
    expect_429("global rate limit of 60 requests per minute reached", "3");
    EXPECT_EQ(limiter.asked, (std::vector<std::string>{"shared global 60"}));
}

TEST_F(stage_global_limit, a_reload_drops_the_slots_granted_under_the_old_limits) {
    every_window();
    limiter.local["global "] = granted(100);
    limiter.local["tenant acme"] = granted(100);
    limiter.local["principal " + alice_key] = granted(100);
    EXPECT_EQ(run().verdict, verdict::proceed);
    EXPECT_TRUE(run().at_once);
    leases.revoke_all();
    limiter.asked.clear();
    EXPECT_FALSE(run().at_once);
    EXPECT_EQ(limiter.asked.size(), 6u) << "each window asks again (store, then limiter)";
}

} // namespace
} // namespace gate::gateway::pipeline
