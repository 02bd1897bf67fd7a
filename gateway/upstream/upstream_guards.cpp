// The upstream's guards on the io thread: admissions decided from the view its actor published
// (guard_lease), the tickets that report each call's outcome, and the breaker shared through the
// fleet's store.
#include "gateway/upstream/upstream_guards.hpp"

#include "actors/federation/upstream_actor.hpp"
#include "actors/guards/sliding_window.hpp"
#include "gateway/fleet/fleet_store.hpp"
#include "transport/bridge.hpp"

#include <caf/send.hpp>

namespace gate::transport {

namespace asio = boost::asio;
using clock = std::chrono::steady_clock;

upstream_guards::upstream_guards(const config::upstream& cfg)
    : cfg_(cfg), board_(std::make_shared<guard_board>(cfg)) {}

upstream_guards::ticket::~ticket() {
    // A probe ended without an outcome: its slot is freed, at the actor that handed it out
    // only (a respawned actor has a probe of its own, or none).
    if (g_ && probe() && board_->actor() == granter_)
        caf::anon_send(granter_, guard_abandon{});
}

bool upstream_guards::ticket::settle_now(const upstream_failure* f) {
    if (!g_)
        return true;
    auto actor = board_->actor();
    bool success = !f || f->answer || !f->upstream_at_fault;
    // No actor: between a crash and its respawn, and the fresh actor starts closed anyway.
    // The probe of an actor that is gone decides nothing for its successor.
    bool nobody = !actor || (probe() && actor != granter_);
    if (!nobody && !(success && !probe()))
        return false;
    auto* g = std::exchange(g_, nullptr);
    if (nobody)
        return true;
    // A success changes nothing unless failures were counted (or are being counted): the
    // hot path sends no message.
    if (board_->view()->failures > 0 || g->failures_out_ > 0)
        caf::anon_send(actor, guard_success{false, {}});
    g->share_success();
    return true;
}

asio::awaitable<void> upstream_guards::ticket::settle(const upstream_failure* f) {
    if (settle_now(f))
        co_return;
    auto* g = std::exchange(g_, nullptr);
    auto actor = board_->actor();
    bool success = !f || f->answer || !f->upstream_at_fault;
    if (success) {
        co_await ask<bool>(actor, [](reply_to<bool> counted) {
            return guard_success{true, std::move(counted)};
        });
        g->share_success();
        co_return;
    }
    ++g->failures_out_;
    co_await ask<bool>(actor, [&](reply_to<bool> counted) {
        return guard_failure{probe(), f->message, std::move(counted)};
    });
    --g->failures_out_;
    if (g->fleet_)
        co_await g->share_failure();
}

asio::awaitable<void> upstream_guards::share_failure() {
    auto fleet = fleet_;
    auto counted = co_await fleet->breaker_failure(cfg_.id);
    if (counted)
        fleet_failures_ = *counted;
    auto view = board_->view();
    if (view->breaker == circuit_breaker::state::closed && counted &&
        *counted >= cfg_.circuit_breaker.failure_threshold)
        if (auto actor = board_->actor()) {
            auto rest = std::chrono::milliseconds(cfg_.circuit_breaker.half_open_after_ms);
            co_await ask<bool>(actor, [&](reply_to<bool> done) {
                return fleet_opened{rest, std::move(done)};
            });
            view = board_->view();
        }
    auto now = clock::now();
    if (view->breaker == circuit_breaker::state::open && view->reopens_at > now)
        fleet->breaker_opened(cfg_.id,
                              std::chrono::ceil<std::chrono::milliseconds>(view->reopens_at - now));
}

void upstream_guards::share_success() {
    if (fleet_ && fleet_failures_ > 0) {
        fleet_->breaker_success(cfg_.id);
        fleet_failures_ = 0;
    }
}

std::optional<std::variant<upstream_guards::ticket, upstream_failure>>
upstream_guards::admit_now(guard_use use) {
    auto decision = lease_.decide(*board_->view(), use, clock::now());
    if (std::holds_alternative<guard_lease::admit_here>(decision))
        return ticket(*this);
    if (auto* r = std::get_if<upstream_guard::refused>(&decision))
        return refusal(*r);
    return std::nullopt;
}

asio::awaitable<std::variant<upstream_guards::ticket, upstream_failure>>
upstream_guards::admit(guard_use use) {
    for (;;) {
        if (auto decided = admit_now(use))
            co_return std::move(*decided);
        auto view = board_->view();
        auto now = clock::now();
        auto actor = board_->actor();
        auto demand = lease_.demand(now);
        std::optional<guard_answer> answer;
        auto ask_actor = [&]() -> asio::awaitable<void> {
            if (actor)
                answer = co_await ask<guard_answer>(actor, [&](reply_to<guard_answer> reply) {
                    return guard_ask{use, demand, std::move(reply)};
                });
        };
        // A batch of slots is asked for by one call at a time; the others spend what it
        // brings. The half-open probe is asked for directly: the actor hands it to one.
        if (view->breaker == circuit_breaker::state::closed) {
            // A batch of the window: the fleet's when it shares one, else the actor's.
            std::optional<sliding_window::batch> shared;
            auto ask_batch = [&]() -> asio::awaitable<void> {
                if (fleet_ && cfg_.rate_limit)
                    shared = co_await fleet_->take_window(
                        "upstream:" + cfg_.id, cfg_.rate_limit->requests_per_minute, demand);
                if (!shared)
                    co_await ask_actor();
            };
            if (!co_await slot_ask_.run_or_wait(ask_batch))
                continue;
            if (shared) {
                if (shared->taken == 0)
                    co_return refusal({upstream_guard::refused::reason::rate_limited,
                                       std::max(shared->wait, std::chrono::milliseconds(1))});
                lease_.grant(shared->taken, shared->until, clock::now());
                co_return ticket(*this);
            }
        } else {
            co_await ask_actor();
        }
        // No actor to ask (between a crash and its respawn) or no answer: the call goes (fail
        // open). gate's own bookkeeping failed, not the upstream.
        if (!answer)
            co_return ticket(*this);
        if (auto* r = std::get_if<upstream_guard::refused>(&*answer))
            co_return refusal(*r);
        auto& granted = std::get<upstream_guard::granted>(*answer);
        lease_.grant(granted.tokens, granted.until, clock::now());
        co_return ticket(*this, granted.probe ? actor : upstream_actor{});
    }
}

upstream_failure upstream_guards::refusal(const upstream_guard::refused& r) const {
    upstream_failure f;
    f.retry_after = r.retry_after;
    if (r.why == upstream_guard::refused::reason::circuit_open) {
        f.what = upstream_failure::kind::circuit_open;
        f.message = "circuit open after repeated failures; next attempt in " +
                    std::to_string(r.retry_after.count()) + " ms";
    } else if (r.why == upstream_guard::refused::reason::given_up) {
        // The supervisor gave up on the upstream's actor: refused by gate's own guards like an
        // open circuit (-32041), with no retry hint (nothing reopens it but a reload).
        f.what = upstream_failure::kind::circuit_open;
        f.message = "gate gave up restarting its guard actor after repeated crashes (a reload "
                    "retries)";
    } else {
        f.what = upstream_failure::kind::rate_limited;
        f.message = "rate limit of " + std::to_string(cfg_.rate_limit->requests_per_minute) +
                    " requests per minute reached; retry in " +
                    std::to_string(whole_seconds(r.retry_after)) + " s";
    }
    return f;
}

circuit_breaker::state upstream_guards::breaker_state() const {
    return board_->view()->shown(clock::now());
}

void upstream_guards::endpoint_failed(std::size_t index, const std::string& why) {
    if (auto actor = board_->actor())
        caf::anon_send(actor, endpoint_down{index, why});
}

} // namespace gate::transport
