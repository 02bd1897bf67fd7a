// The upstream sessions of one client: the root ones and each downstream client's bridged
// one, found or made for a call, opened once (single flight), forgotten, ended, and closed.
#include "gateway/upstream/upstream_sessions.hpp"

#include "gateway/upstream/upstream_client_parts.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "protocol/modern_request.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <vector>

namespace gate::gateway {

namespace asio = boost::asio;
using clock = std::chrono::steady_clock;
using namespace boost::asio::experimental::awaitable_operators;
using namespace upstream::parts;

upstream_sessions::upstream_sessions(upstream_state& state, upstream_exchange& exchange,
                                     upstream_guards& guards, upstream_observer& heard,
                                     session_hooks& hooks)
    : state_(state), exchange_(exchange), guards_(guards), heard_(heard), hooks_(hooks),
      root_(std::make_shared<upstream_session>()) {
    // The root session declares what gate can bridge (servers register some tools only for
    // clients that sample or elicit); lists for a client are asked on the root session of its
    // profile, and each bridged session declares exactly what its client declared.
    root_->capabilities = protocol::shared_capabilities_of(protocol::full_profile);
}

session_ptr upstream_sessions::find(const std::string& bridge) const {
    auto it = bridged_.find(bridge);
    return it == bridged_.end() ? nullptr : it->second;
}

session_ptr upstream_sessions::session_for(const call_context& ctx) {
    if (ctx.bridge.empty()) {
        if (ctx.caller)
            return nullptr; // a caller's credential never opens a shared session
        if (ctx.profile == protocol::full_profile || ctx.profile >= protocol::profile_count)
            return root_;
        for (const auto& [profile, r] : profile_roots_)
            if (profile == ctx.profile)
                return r;
        auto r = std::make_shared<upstream_session>();
        r->capabilities = protocol::shared_capabilities_of(ctx.profile);
        profile_roots_.emplace_back(ctx.profile, r);
        return r;
    }
    auto& s = bridged_[ctx.bridge];
    if (!s) {
        s = std::make_shared<upstream_session>();
        s->bridge = ctx.bridge;
        if (ctx.client_capabilities)
            s->capabilities = std::make_shared<const boost::json::object>(*ctx.client_capabilities);
        // A 2026-07-28 upstream sends no log message to a request that asks for none, where a
        // server of the client's era logs unasked: the client hears what it would there.
        if (ctx.session_client && state_.modern)
            s->log_level = std::string(protocol::session_default_log_level);
    }
    if (ctx.caller) {
        // Bridges are keyed by a session bound to one principal, or by the principal itself;
        // another principal's credential on it would be a bug, refused rather than sent.
        if (s->caller && !s->caller->same_principal(*ctx.caller))
            return nullptr;
        s->caller = ctx.caller; // its latest token
    }
    return s;
}

asio::awaitable<std::optional<upstream_failure>>
upstream_sessions::ensure_session(session_ptr s, const call_context& ctx,
                                  std::optional<std::size_t> avoid) {
    auto deadline = clock::now() + state_.budget_for(ctx);
    for (;;) {
        if (ready_now(*s))
            co_return std::nullopt;
        switch (s->life.next(state_.closed)) {
        case session_lifecycle::step::use:
            // Its replica is out of rotation while another is in: the session opens again
            // there (as after a 404) instead of failing until the replica returns.
            reset_session(*s);
            continue;
        case session_lifecycle::step::ended:
            co_return fail(upstream_failure::kind::connect_error,
                           "upstream " + state_.cfg.id + " session was ended");
        case session_lifecycle::step::wait: {
            // Single-flight: later callers wait for the handshake already under way, but no
            // longer than their own budget (a /health probe must not inherit a 60 s wait).
            auto done = s->handshake_done;
            asio::steady_timer bound(state_.ex, deadline);
            boost::system::error_code done_ec, bound_ec; // cancellation is the normal wake-up
            auto which =
                co_await (done->async_wait(asio::redirect_error(asio::use_awaitable, done_ec)) ||
                          bound.async_wait(asio::redirect_error(asio::use_awaitable, bound_ec)));
            if (which.index() == 1)
                co_return fail(upstream_failure::kind::timeout,
                               "upstream " + state_.cfg.id + " handshake still under way after " +
                                   std::to_string(state_.budget_for(ctx).count()) + " ms");
            if (s->life.next(state_.closed) == session_lifecycle::step::handshake)
                co_return fail(upstream_failure::kind::connect_error,
                               "upstream " + state_.cfg.id + " handshake failed");
            continue;
        }
        case session_lifecycle::step::handshake:
            break;
        }
        s->life.begin_handshake();
        s->handshake_done =
            std::make_shared<asio::steady_timer>(state_.ex, clock::time_point::max());
        std::optional<upstream_failure> failure;
        try {
            failure = co_await handshake(s, ctx, avoid);
        } catch (const std::exception& e) {
            failure = fail(upstream_failure::kind::protocol,
                           std::string("handshake failed: ") + e.what());
        }
        s->life.end_handshake();
        // Waiters hold their own reference to the timer; cancelling wakes them all.
        std::exchange(s->handshake_done, nullptr)->cancel();
        if (failure)
            co_return failure;
    }
    co_return std::nullopt;
}

bool upstream_sessions::ready_now(const upstream_session& s) const {
    return s.life.next(state_.closed) == session_lifecycle::step::use && !stranded(s);
}

bool upstream_sessions::stranded(const upstream_session& s) const {
    if (!s.ep || state_.closed || exchange_.endpoints().size() < 2)
        return false;
    auto view = guards_.board()->view();
    const auto& in = view->in_rotation;
    return s.ep->index < in.size() && !in[s.ep->index] &&
           std::find(in.begin(), in.end(), true) != in.end();
}

void upstream_sessions::reset_session(upstream_session& s) {
    s.life.reset();
    s.state = {};
    s.ep = nullptr;
    if (s.listening)
        s.listening->lowest().close();
}

std::optional<session_address> upstream_sessions::address_of(const std::string& bridge) const {
    // The root session for an empty bridge (a 2026-07-28 client's parked call asked on it).
    auto found = bridge.empty() ? root_ : find(bridge);
    if (!found || !found->life.ready() || !found->ep || found->state.id.empty())
        return std::nullopt;
    const auto& s = *found;
    return session_address{s.state.id, s.state.protocol_version, s.ep->index};
}

bool upstream_sessions::retire_bridge(const std::string& bridge) {
    auto it = bridged_.find(bridge);
    if (it != bridged_.end() && it->second->life.in_use())
        return false;
    end_bridge(bridge);
    return true;
}

void upstream_sessions::end_bridge(const std::string& bridge) {
    auto it = bridged_.find(bridge);
    if (it == bridged_.end())
        return;
    auto s = std::move(it->second);
    bridged_.erase(it);
    bool was_ready = s->life.end();
    if (s->listening)
        s->listening->lowest().close();
    if (s->relisten)
        s->relisten->cancel();
    if (was_ready && s->ep && !s->state.id.empty())
        asio::co_spawn(state_.ex, exchange_.send_delete(*s->ep, s->state, s->caller),
                       asio::detached);
}

void upstream_sessions::close() {
    std::vector<std::string> all;
    for (auto& [bridge, s] : bridged_)
        all.push_back(bridge);
    for (auto& b : all)
        end_bridge(b);
    for (const auto& [profile, r] : profile_roots_) {
        r->life.end();
        if (r->listening)
            r->listening->lowest().close();
        if (r->relisten)
            r->relisten->cancel();
    }
    if (root_->listening)
        root_->listening->lowest().close();
    if (root_->relisten)
        root_->relisten->cancel();
}

} // namespace gate::gateway
