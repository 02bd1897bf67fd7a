// upstream_guards, stage 6 at one upstream on the io thread: what the published
// view decides alone (a closed circuit admits without a message; an open, a
// half-open whose probe is out and a given-up one refuse, saying so), failing
// open when there is no actor to ask, and with the real breaker and upstream
// actors: a failure settled is counted before settle returns, so the next
// admission sees the circuit it opened; a rate limit's window refuses once
// spent; a half-open probe refused its window slot is given back.
#include "actors/federation/upstream_actor.hpp"
#include "actors/message_types.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "tests/support/guard_views.hpp"
#include "tests/unit/upstream_loopback.hpp"

#include <caf/all.hpp>
#include <future>
#include <gtest/gtest.h>

namespace gate::test {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using state = actors::circuit_breaker::state;
using gateway::upstream_failure;
using gateway::upstream_guards;
using admission = std::variant<upstream_guards::ticket, upstream_failure>;

config::upstream guarded(std::int64_t threshold = 3, std::optional<std::int64_t> rpm = {}) {
    auto u = upstream_at("http://127.0.0.1:9/mcp", "g");
    u.circuit_breaker.failure_threshold = threshold;
    u.circuit_breaker.half_open_after_ms = 60'000;
    if (rpm)
        u.rate_limit = config::rate_limit{*rpm};
    return u;
}

void publish(upstream_guards& g, actors::guard_view v) {
    test::publish_view(*g.board(), std::move(v));
}

upstream_failure failure_of(upstream_failure::kind k, std::string message) {
    upstream_failure f;
    f.what = k;
    f.message = std::move(message);
    return f;
}

// Why `a` was refused (null: it was not). `a` must outlive the pointer.
const upstream_failure* refused(const std::optional<admission>& a) {
    return a ? std::get_if<upstream_failure>(&*a) : nullptr;
}
const upstream_failure* refused(std::optional<admission>&&) = delete;

TEST(upstream_guards, a_closed_circuit_admits_from_the_view_and_a_success_sends_nothing) {
    auto cfg = guarded();
    upstream_guards g(cfg);
    auto a = g.admit_now(actors::guard_use::invocation);
    ASSERT_TRUE(a);
    auto* t = std::get_if<upstream_guards::ticket>(&*a);
    ASSERT_NE(t, nullptr);
    EXPECT_TRUE(t->settle_now(nullptr));
    EXPECT_EQ(g.breaker_state(), state::closed);
}

TEST(upstream_guards, an_open_circuit_refuses_until_its_rest_is_over) {
    auto cfg = guarded();
    upstream_guards g(cfg);
    auto v = actors::guard_board::initial_view(cfg);
    v.breaker = state::open;
    v.reopens_at = std::chrono::steady_clock::now() + 30s;
    publish(g, v);
    auto refusal = g.admit_now(actors::guard_use::invocation);
    auto* f = refused(refusal);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->what, upstream_failure::kind::circuit_open);
    EXPECT_GT(f->retry_after, 29s);
    EXPECT_NE(f->message.find("circuit open"), std::string::npos);
    // gate's own upkeep is refused too: the breaker covers every exchange.
    auto upkeep = g.admit_now(actors::guard_use::upkeep);
    EXPECT_NE(refused(upkeep), nullptr);
    EXPECT_EQ(g.breaker_state(), state::open);
}

TEST(upstream_guards, a_half_open_circuit_whose_probe_is_out_refuses_the_others) {
    auto cfg = guarded();
    upstream_guards g(cfg);
    auto v = actors::guard_board::initial_view(cfg);
    v.breaker = state::half_open;
    v.probe_out = true;
    publish(g, v);
    auto refusal = g.admit_now(actors::guard_use::invocation);
    auto* f = refused(refusal);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->what, upstream_failure::kind::circuit_open);
}

TEST(upstream_guards, an_upstream_given_up_on_is_refused_with_no_retry_hint) {
    auto cfg = guarded();
    upstream_guards g(cfg);
    publish(g, test::given_up_view(cfg));
    auto refusal = g.admit_now(actors::guard_use::invocation);
    auto* f = refused(refusal);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->what, upstream_failure::kind::circuit_open);
    EXPECT_EQ(f->retry_after, 0ms);
    EXPECT_NE(f->message.find("reload"), std::string::npos);
}

TEST(upstream_guards, what_the_view_cannot_decide_goes_through_when_there_is_no_actor) {
    auto cfg = guarded(3, 60);
    upstream_guards g(cfg);
    auto v = actors::guard_board::initial_view(cfg);
    v.limited = true; // and no slots leased: the actor would be asked
    publish(g, v);
    EXPECT_FALSE(g.admit_now(actors::guard_use::invocation));
    asio::io_context io;
    auto a = run(io, g.admit(actors::guard_use::invocation));
    EXPECT_TRUE(std::holds_alternative<upstream_guards::ticket>(a)); // gate's bookkeeping failed
}

// The real breaker and upstream actors on a threaded actor system; the io thread is the
// test's.
struct guards_with_actor : ::testing::Test {
    // The io_context outlives the actor system: an actor's last copy of a reply may still
    // hold io objects when the system shuts down.
    asio::io_context io;
    caf::actor_system_config cfg;
    std::optional<caf::actor_system> sys;
    actors::upstream_actor actor;
    actors::breaker_actor breakers;

    void start(upstream_guards& g) {
        cfg.set("logger.verbosity", caf::atom("quiet"));
        actors::add_message_types(cfg);
        sys.emplace(cfg);
        actor = spawn_upstream_actor(*sys, g.board());
        breakers = actors::spawn_breaker_actor(*sys, {g.board()});
    }
    // Sent from this thread, so the actor handles it after everything sent before it.
    std::optional<actors::guard_answer>
    ask_breaker(const std::shared_ptr<actors::guard_board>& board) {
        std::promise<std::optional<actors::guard_answer>> got;
        caf::anon_send(breakers,
                       actors::breaker_ask{board, actors::reply_to<actors::guard_answer>(
                                                      [&](auto a) { got.set_value(a); })});
        return got.get_future().get();
    }
    void TearDown() override {
        if (actor)
            caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
        if (breakers)
            caf::anon_send_exit(breakers, caf::exit_reason::user_shutdown);
    }
};

TEST_F(guards_with_actor, a_failure_is_counted_before_settle_returns) {
    auto u = guarded(1);
    upstream_guards g(u);
    start(g);
    auto a = g.admit_now(actors::guard_use::invocation);
    ASSERT_TRUE(a && std::holds_alternative<upstream_guards::ticket>(*a));
    auto failed = failure_of(upstream_failure::kind::timeout, "slow");
    run(io, [](upstream_guards::ticket t, upstream_failure f) -> asio::awaitable<void> {
        EXPECT_FALSE(t.settle_now(&f)); // a failure must be counted: it waits for the actor
        co_await t.settle(&f);
    }(std::move(std::get<upstream_guards::ticket>(*a)), failed));
    // The threshold was one failure: the very next admission sees the circuit
    // open.
    auto refusal = g.admit_now(actors::guard_use::invocation);
    auto* f = refused(refusal);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->what, upstream_failure::kind::circuit_open);
    EXPECT_EQ(g.breaker_state(), state::open);
}

TEST_F(guards_with_actor, a_failure_that_is_not_the_upstreams_opens_nothing) {
    auto u = guarded(1);
    upstream_guards g(u);
    start(g);
    auto a = g.admit_now(actors::guard_use::invocation);
    ASSERT_TRUE(a);
    auto f = failure_of(upstream_failure::kind::protocol, "no input");
    f.upstream_at_fault = false;
    EXPECT_TRUE(std::get<upstream_guards::ticket>(*a).settle_now(&f));
    auto next = g.admit_now(actors::guard_use::invocation);
    ASSERT_TRUE(next);
    EXPECT_EQ(refused(next), nullptr);
}

// gate's own capacity refused an answer (the answers being read from the upstream together):
// it tells nothing of the upstream, so it neither resets the failures counted before it nor
// counts as one.
TEST_F(guards_with_actor, a_refusal_of_gates_own_capacity_counts_neither_way) {
    auto u = guarded(2);
    upstream_guards g(u);
    start(g);
    auto settle = [&](upstream_failure f) {
        auto a = g.admit_now(actors::guard_use::invocation);
        ASSERT_TRUE(a && std::holds_alternative<upstream_guards::ticket>(*a));
        run(io, [](upstream_guards::ticket t, upstream_failure f) -> asio::awaitable<void> {
            co_await t.settle(&f);
        }(std::move(std::get<upstream_guards::ticket>(*a)), std::move(f)));
    };
    settle(failure_of(upstream_failure::kind::timeout, "slow"));
    auto busy = failure_of(upstream_failure::kind::protocol, "over the bound together");
    busy.capacity = true;
    busy.upstream_at_fault = false;
    settle(busy);
    settle(busy);
    EXPECT_EQ(g.breaker_state(), state::closed) << "no failure counted for it";
    settle(failure_of(upstream_failure::kind::timeout, "slow again"));
    EXPECT_EQ(g.breaker_state(), state::open) << "nor the count before it reset";
}

TEST_F(guards_with_actor, a_spent_rate_window_refuses_invocations_but_not_upkeep) {
    auto u = guarded(3, 2);
    upstream_guards g(u);
    start(g);
    auto admit = [&](actors::guard_use use) { return run(io, g.admit(use)); };
    for (int i = 0; i < 2; ++i)
        EXPECT_TRUE(
            std::holds_alternative<upstream_guards::ticket>(admit(actors::guard_use::invocation)));
    auto third = admit(actors::guard_use::invocation);
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(third));
    const auto& f = std::get<upstream_failure>(third);
    EXPECT_EQ(f.what, upstream_failure::kind::rate_limited);
    EXPECT_NE(f.message.find("rate limit of 2 requests per minute"), std::string::npos);
    EXPECT_GT(f.retry_after, 0ms);
    EXPECT_TRUE(std::holds_alternative<upstream_guards::ticket>(admit(actors::guard_use::upkeep)));
}

TEST_F(guards_with_actor, a_half_open_probe_refused_its_window_slot_is_given_back) {
    auto u = guarded(3, 1);
    upstream_guards g(u);
    start(g);
    // The window's one slot is spent; then the circuit opens with no rest (the fleet's word).
    EXPECT_TRUE(std::holds_alternative<upstream_guards::ticket>(
        run(io, g.admit(actors::guard_use::invocation))));
    std::promise<void> opened;
    caf::anon_send(breakers,
                   actors::breaker_fleet_opened{
                       g.board(), 0ms, actors::reply_to<bool>([&](auto) { opened.set_value(); })});
    opened.get_future().wait();
    ASSERT_EQ(g.board()->view()->breaker, state::open);
    // The call takes the probe, finds no slot in the window, and is refused as rate limited.
    auto limited = run(io, g.admit(actors::guard_use::invocation));
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(limited));
    EXPECT_EQ(std::get<upstream_failure>(limited).what, upstream_failure::kind::rate_limited);
    // The probe went back with the refused call: the next asker gets it.
    auto next = ask_breaker(g.board());
    ASSERT_TRUE(next && std::holds_alternative<actors::upstream_guard::granted>(*next));
    EXPECT_TRUE(std::get<actors::upstream_guard::granted>(*next).probe);
}

} // namespace
} // namespace gate::test
