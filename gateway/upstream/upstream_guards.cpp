// The upstream's guards on the io thread: admissions decided from the view its actor published
// (guard_lease), the tickets that report each call's outcome, and the breaker shared through the
// fleet's store.
#include "gateway/upstream/upstream_guards.hpp"

#include "actors/bridge.hpp"
#include "actors/federation/upstream_actor.hpp"
#include "actors/guards/sliding_window.hpp"
#include "gateway/fleet/fleet_store.hpp"

#include <caf/send.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
using clock = std::chrono::steady_clock;

upstream_guards::upstream_guards(const config::upstream& cfg,
                                 std::shared_ptr<actors::guard_board> board)
    : cfg_(cfg), board_(board ? std::move(board) : std::make_shared<actors::guard_board>(cfg)) {}

upstream_guards::ticket::~ticket() {
    // A probe ended without an outcome: its slot is freed, at the breaker actor that handed it
    // out only (a respawned one has a probe of its own, or none).
    if (g_ && probe() && board_->breaker() == granter_)
        caf::anon_send(granter_, actors::breaker_abandon{board_});
}

namespace {

bool succeeded(const upstream_failure* f) {
    return !f || f->answer || !f->upstream_at_fault;
}

} // namespace

bool upstream_guards::ticket::settle_now(const upstream_failure* f) {
    if (!g_)
        return true;
    // gate's own capacity refused the answer: no outcome is told. The ticket keeps its guard,
    // so a probe's slot is freed when it goes (the destructor), for the next call to probe.
    if (f && f->capacity)
        return true;
    bool success = succeeded(f);
    if (success && !probe()) // the hot path: no handle copied, and no message unless counted
        return settle_success();
    // A failure or the probe's outcome is told and waited for (settle), unless no breaker
    // actor is there to count it: between a crash and its respawn, and the fresh one starts
    // closed anyway. The probe of an actor that is gone decides nothing for its successor.
    auto breaker = board_->breaker();
    if (breaker && !(probe() && breaker != granter_))
        return false;
    g_ = nullptr;
    return true;
}

bool upstream_guards::ticket::settle_success() {
    auto* g = std::exchange(g_, nullptr);
    if (!board_->has_breaker())
        return true;
    if (board_->view()->failures > 0 || g->failures_out_ > 0)
        if (auto breaker = board_->breaker())
            caf::anon_send(breaker, actors::breaker_outcome{board_, true, false, {}, {}});
    g->share_success();
    return true;
}

asio::awaitable<void> upstream_guards::ticket::settle(const upstream_failure* f) {
    if (settle_now(f))
        co_return;
    auto* g = std::exchange(g_, nullptr);
    auto breaker = board_->breaker();
    if (succeeded(f)) { // the probe's success: the calls after it see the closed circuit
        co_await actors::ask<bool>(breaker, [&](actors::reply_to<bool> counted) {
            return actors::breaker_outcome{board_, true, true, {}, std::move(counted)};
        });
        g->share_success();
        co_return;
    }
    ++g->failures_out_;
    co_await actors::ask<bool>(breaker, [&](actors::reply_to<bool> counted) {
        return actors::breaker_outcome{board_, false, probe(), f->message, std::move(counted)};
    });
    --g->failures_out_;
    if (g->fleet_)
        co_await g->share_failure();
}

asio::awaitable<void> upstream_guards::share_failure() {
    auto fleet = fleet_;
    auto counted = co_await fleet->breakers().failure(cfg_.id);
    if (counted)
        fleet_failures_ = *counted;
    auto view = board_->view();
    if (view->breaker == actors::circuit_breaker::state::closed && counted &&
        *counted >= cfg_.circuit_breaker.failure_threshold)
        if (auto breaker = board_->breaker()) {
            auto rest = std::chrono::milliseconds(cfg_.circuit_breaker.half_open_after_ms);
            co_await actors::ask<bool>(breaker, [&](actors::reply_to<bool> done) {
                return actors::breaker_fleet_opened{board_, rest, std::move(done)};
            });
            view = board_->view();
        }
    auto now = clock::now();
    if (view->breaker == actors::circuit_breaker::state::open && view->reopens_at > now)
        fleet->breakers().opened(
            cfg_.id, std::chrono::ceil<std::chrono::milliseconds>(view->reopens_at - now));
}

void upstream_guards::share_success() {
    if (fleet_ && fleet_failures_ > 0) {
        fleet_->breakers().success(cfg_.id);
        fleet_failures_ = 0;
    }
}

std::optional<std::variant<upstream_guards::ticket, upstream_failure>>
upstream_guards::admit_now(actors::guard_use use) {
    auto decision = lease_.decide(*board_->view(), use, clock::now());
    if (std::holds_alternative<actors::guard_lease::admit_here>(decision))
        return ticket(*this);
    if (auto* r = std::get_if<actors::upstream_guard::refused>(&decision))
        return refusal(*r);
    return std::nullopt;
}

asio::awaitable<std::variant<upstream_guards::ticket, upstream_failure>>
upstream_guards::admit(actors::guard_use use) {
    for (;;) {
        if (auto decided = admit_now(use))
            co_return std::move(*decided);
        if (board_->view()->breaker != actors::circuit_breaker::state::closed)
            co_return co_await take_probe(use);
        upstream_failure refused;
        switch (co_await take_window_batch(use, refused)) {
        case window_batch::admitted:
            co_return ticket(*this);
        case window_batch::refused:
            co_return std::move(refused);
        case window_batch::decide_again:
            break;
        }
    }
}

asio::awaitable<upstream_guards::window_batch>
upstream_guards::take_window_batch(actors::guard_use use, upstream_failure& refused) {
    auto demand = lease_.demand(clock::now());
    std::optional<actors::sliding_window::batch> shared;
    std::optional<actors::guard_answer> answer;
    auto ask_batch = [&]() -> asio::awaitable<void> {
        if (fleet_ && cfg_.rate_limit)
            shared = co_await fleet_->take_window("upstream:" + cfg_.id,
                                                  cfg_.rate_limit->requests_per_minute, demand);
        if (shared)
            co_return;
        if (auto actor = board_->actor())
            answer = co_await actors::ask<actors::guard_answer>(
                actor, [&](actors::reply_to<actors::guard_answer> reply) {
                    return actors::guard_ask{use, demand, std::move(reply)};
                });
    };
    if (!co_await slot_ask_.run_or_wait(ask_batch))
        co_return window_batch::decide_again;
    std::optional<actors::upstream_guard::granted> granted;
    if (shared) {
        if (shared->taken == 0) {
            refused = refusal({actors::upstream_guard::refused::reason::rate_limited,
                               std::max(shared->wait, std::chrono::milliseconds(1))});
            co_return window_batch::refused;
        }
        granted = actors::upstream_guard::granted{false, shared->taken, shared->until};
    } else if (answer) {
        if (auto* r = std::get_if<actors::upstream_guard::refused>(&*answer)) {
            refused = refusal(*r);
            co_return window_batch::refused;
        }
        granted = std::get<actors::upstream_guard::granted>(*answer);
    }
    // No actor to ask (between a crash and its respawn) or no answer: the call goes (fail
    // open). gate's own bookkeeping failed, not the upstream.
    if (granted)
        lease_.grant(granted->tokens, granted->until, clock::now());
    co_return window_batch::admitted;
}

asio::awaitable<std::variant<upstream_guards::ticket, upstream_failure>>
upstream_guards::take_probe(actors::guard_use use) {
    auto breaker = board_->breaker();
    std::optional<actors::guard_answer> answer;
    if (breaker)
        answer = co_await actors::ask<actors::guard_answer>(
            breaker, [&](actors::reply_to<actors::guard_answer> reply) {
                return actors::breaker_ask{board_, std::move(reply)};
            });
    // No breaker actor to ask, or no answer: the call goes (fail open).
    if (!answer)
        co_return ticket(*this);
    if (auto* r = std::get_if<actors::upstream_guard::refused>(&*answer))
        co_return refusal(*r);
    ticket admitted(*this, std::get<actors::upstream_guard::granted>(*answer).probe
                               ? breaker
                               : actors::breaker_actor{});
    // The probe first, then its slot of the window: a call refused its slot gives the probe back
    // (the ticket's end), so a rate-limited call never holds the half-open circuit.
    while (use == actors::guard_use::invocation && board_->view()->limited &&
           !lease_.take_slot(clock::now())) {
        upstream_failure refused;
        auto got = co_await take_window_batch(use, refused);
        if (got == window_batch::refused)
            co_return std::move(refused);
        if (got == window_batch::admitted)
            break;
    }
    co_return std::move(admitted);
}

upstream_failure upstream_guards::refusal(const actors::upstream_guard::refused& r) const {
    upstream_failure f;
    f.retry_after = r.retry_after;
    if (r.why == actors::upstream_guard::refused::reason::circuit_open) {
        f.what = upstream_failure::kind::circuit_open;
        f.message = "circuit open after repeated failures; next attempt in " +
                    std::to_string(r.retry_after.count()) + " ms";
    } else if (r.why == actors::upstream_guard::refused::reason::given_up) {
        // The supervisor gave up on the upstream's actor: refused by gate's own guards like an
        // open circuit (-32041), with no retry hint (nothing reopens it but a reload).
        f.what = upstream_failure::kind::circuit_open;
        f.message = "gate gave up restarting its guard actor after repeated crashes (a reload "
                    "retries)";
    } else {
        f.what = upstream_failure::kind::rate_limited;
        f.message = "rate limit of " + std::to_string(cfg_.rate_limit->requests_per_minute) +
                    " requests per minute reached; retry in " +
                    std::to_string(actors::whole_seconds(r.retry_after)) + " s";
    }
    return f;
}

actors::circuit_breaker::state upstream_guards::breaker_state() const {
    return board_->view()->shown(clock::now());
}

void upstream_guards::endpoint_failed(std::size_t index, const std::string& why) {
    if (auto actor = board_->actor())
        caf::anon_send(actor, actors::endpoint_down{index, why});
}

} // namespace gate::gateway
