// The chain with fake stages: the spec's order, a stage that answers early, a stage that
// throws, an answer made outside the stages: whatever happens, the exit runs exactly once.
#include "gateway/pipeline/chain.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <functional>
#include <gtest/gtest.h>
#include <optional>
#include <stdexcept>
#include <vector>

namespace gate::transport::pipeline {
namespace {

struct journal {
    std::vector<transport::stage> ran;
    int exits = 0;
    protocol::outcome exit_outcome = protocol::outcome::ok;
};

// A stage that decides at once, or (`waits`) one that returns a coroutine which suspends
// before it decides.
class fake_stage final : public stage {
public:
    enum class act { proceed, answer, fail };
    fake_stage(transport::stage id, journal& j, act a = act::proceed, bool waits = false)
        : id_(id), j_(j), a_(a), waits_(waits) {}
    transport::stage id() const override { return id_; }
    step run(request_context& ctx) override {
        if (waits_)
            return later(ctx);
        return decide(ctx);
    }

private:
    verdict decide(request_context& ctx) {
        j_.ran.push_back(id_);
        if (a_ == act::fail)
            throw std::runtime_error("stage failed");
        if (a_ == act::answer) {
            ctx.outcome = protocol::outcome::denied;
            return verdict::answered;
        }
        return verdict::proceed;
    }

    boost::asio::awaitable<verdict> later(request_context& ctx) {
        co_await boost::asio::post(co_await boost::asio::this_coro::executor,
                                   boost::asio::use_awaitable);
        co_return decide(ctx);
    }

    transport::stage id_;
    journal& j_;
    act a_;
    bool waits_;
};

class fake_exit final : public exit_stage {
public:
    explicit fake_exit(journal& j) : j_(j) {}
    void exit(request_context& ctx) override {
        ++j_.exits;
        j_.exit_outcome = ctx.outcome;
    }

private:
    journal& j_;
};

// `waiting`: which stages return a coroutine (none: all decide at once).
chain make(journal& j, transport::stage special = transport::stage::audit,
           fake_stage::act what = fake_stage::act::proceed,
           std::function<bool(transport::stage)> waiting = {}) {
    std::array<std::unique_ptr<stage>, 8> stages;
    for (std::size_t i = 0; i < 8; ++i) {
        auto id = pipeline_order[i];
        stages[i] = std::make_unique<fake_stage>(
            id, j, id == special ? what : fake_stage::act::proceed, waiting && waiting(id));
    }
    return chain(std::move(stages), std::make_unique<fake_exit>(j));
}

bool every_other(transport::stage id) {
    return static_cast<int>(id) % 2 == 0;
}

// Runs the chain as the gateway does: a ready step is taken as it is, a waiting one awaited.
// `ready`: whether it was ready.
verdict run(chain& c, request_context& ctx, transport::stage from = transport::stage::authenticate,
            transport::stage to = transport::stage::egress, bool* ready = nullptr) {
    auto s = c.run(ctx, from, to);
    if (ready)
        *ready = s.ready();
    if (s.ready())
        return s.value();
    boost::asio::io_context io;
    std::optional<verdict> v;
    boost::asio::co_spawn(
        io, [&]() -> boost::asio::awaitable<void> { v = co_await s.take(); },
        boost::asio::detached);
    io.run();
    EXPECT_TRUE(v.has_value());
    return v.value_or(verdict::proceed);
}

std::vector<transport::stage> from_to(std::size_t first, std::size_t last) {
    return {pipeline_order.begin() + static_cast<std::ptrdiff_t>(first),
            pipeline_order.begin() + static_cast<std::ptrdiff_t>(last) + 1};
}

} // namespace

TEST(chain, runs_the_stages_in_the_spec_order_then_exits_once) {
    journal j;
    auto c = make(j);
    request_context ctx;
    EXPECT_EQ(run(c, ctx), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 7)); // stage 1 ran at admission
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(ctx.trace.count, 8u);
    EXPECT_EQ(ctx.trace.passed[7], transport::stage::audit);
}

TEST(chain, a_stage_that_answers_early_skips_the_rest_and_still_exits_once) {
    journal j;
    auto c = make(j, transport::stage::route, fake_stage::act::answer);
    request_context ctx;
    EXPECT_EQ(run(c, ctx), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 3));
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(j.exit_outcome, protocol::outcome::denied);
    c.conclude(ctx); // an answer path that concludes again: still once
    EXPECT_EQ(j.exits, 1);
}

TEST(chain, a_stage_that_throws_answers_an_internal_error_and_exits_once) {
    journal j;
    auto c = make(j, transport::stage::proxy, fake_stage::act::fail);
    request_context ctx;
    ctx.id = 7;
    EXPECT_EQ(run(c, ctx), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 6));
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(j.exit_outcome, protocol::outcome::error);
    EXPECT_EQ(*ctx.error, "stage failed");
    ASSERT_TRUE(ctx.response);
    EXPECT_EQ(ctx.response->at("error").at("code"), -32603);
    EXPECT_EQ(ctx.response->at("id"), 7);
}

TEST(chain, stages_that_decide_at_once_need_no_coroutine) {
    journal j;
    auto c = make(j);
    request_context ctx;
    bool ready = false;
    EXPECT_EQ(run(c, ctx, transport::stage::authenticate, transport::stage::egress, &ready),
              verdict::answered);
    EXPECT_TRUE(ready);
    EXPECT_EQ(j.exits, 1);
}

TEST(chain, stages_that_wait_run_in_the_same_order_and_exit_once) {
    journal j;
    auto c = make(j, transport::stage::audit, fake_stage::act::proceed, every_other);
    request_context ctx;
    bool ready = true;
    EXPECT_EQ(run(c, ctx, transport::stage::authenticate, transport::stage::egress, &ready),
              verdict::answered);
    EXPECT_FALSE(ready);
    EXPECT_EQ(j.ran, from_to(1, 7));
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(ctx.trace.count, 8u);
}

TEST(chain, a_waiting_stage_that_answers_skips_the_rest_and_exits_once) {
    journal j;
    auto c = make(j, transport::stage::upstream_guards, fake_stage::act::answer,
                  [](transport::stage id) { return id == transport::stage::upstream_guards; });
    request_context ctx;
    EXPECT_EQ(run(c, ctx), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 5));
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(j.exit_outcome, protocol::outcome::denied);
}

TEST(chain, a_waiting_stage_that_throws_answers_an_internal_error_and_exits_once) {
    journal j;
    auto c = make(j, transport::stage::proxy, fake_stage::act::fail, every_other);
    request_context ctx;
    ctx.id = 9;
    EXPECT_EQ(run(c, ctx), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 6));
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(*ctx.error, "stage failed");
    ASSERT_TRUE(ctx.response);
    EXPECT_EQ(ctx.response->at("error").at("code"), -32603);
    EXPECT_EQ(ctx.response->at("id"), 9);
}

TEST(chain, a_run_that_stops_before_egress_does_not_exit_and_the_rest_exits_once) {
    journal j;
    auto c = make(j);
    request_context ctx;
    EXPECT_EQ(run(c, ctx, transport::stage::authenticate, transport::stage::global_limit),
              verdict::proceed);
    EXPECT_EQ(j.exits, 0); // the request goes on
    EXPECT_EQ(run(c, ctx, transport::stage::route), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 7));
    EXPECT_EQ(j.exits, 1);
}

TEST(chain, an_answer_made_outside_the_stages_leaves_by_the_exit_once) {
    journal j;
    auto c = make(j);
    request_context ctx;
    c.conclude(ctx);
    c.conclude(ctx);
    EXPECT_EQ(j.exits, 1);
    EXPECT_TRUE(j.ran.empty());
}

TEST(chain, refuses_stages_out_of_the_spec_order) {
    journal j;
    std::array<std::unique_ptr<stage>, 8> stages;
    for (std::size_t i = 0; i < 8; ++i)
        stages[i] = std::make_unique<fake_stage>(pipeline_order[i], j);
    std::swap(stages[1], stages[2]); // the global limit before authentication
    EXPECT_THROW(chain(std::move(stages), std::make_unique<fake_exit>(j)), std::logic_error);
}

} // namespace gate::transport::pipeline
