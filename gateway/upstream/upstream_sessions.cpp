// The upstream sessions of one client: the root ones and each downstream client's bridged
// one, found or made for a call, opened once (single flight), forgotten, ended, and closed.
#include "actors/endpoint_rotation.hpp"
#include "gateway/fleet/fleet_store.hpp"
#include "gateway/operations/traffic_tap.hpp"
#include "gateway/upstream/upstream_client.hpp"
#include "gateway/upstream/upstream_client_parts.hpp"
#include "protocol/json_check.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/modern_request.hpp"
#include "transport/bridge.hpp"
#include "transport/client/upstream_connection.hpp"
#include "transport/http/buffered_parse.hpp"
#include "transport/http/header_writer.hpp"
#include "transport/http/sse.hpp"
#include "transport/http/write_now.hpp"
#include "transport/process/version.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>
#include <spdlog/spdlog.h>
#include <type_traits>

namespace gate::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using clock = std::chrono::steady_clock;
using namespace boost::asio::experimental::awaitable_operators;
using namespace upstream_parts;

void upstream_client::reset_session(upstream_session& s) {
    s.life.reset();
    s.state = {};
    s.ep = nullptr;
    if (s.listening)
        s.listening->lowest().close();
}

upstream_client::session_ptr upstream_client::session_for(const call_context& ctx) {
    if (ctx.bridge.empty()) {
        if (ctx.caller)
            return nullptr; // a caller's credential never opens a shared session
        if (ctx.profile == protocol::full_profile || ctx.profile >= protocol::profile_count)
            return root_;
        auto& r = profile_roots_[ctx.profile];
        if (!r) {
            r = std::make_shared<upstream_session>();
            r->capabilities = protocol::capabilities_of(ctx.profile);
        }
        return r;
    }
    auto& s = bridged_[ctx.bridge];
    if (!s) {
        s = std::make_shared<upstream_session>();
        s->bridge = ctx.bridge;
        if (ctx.client_capabilities)
            s->capabilities = *ctx.client_capabilities;
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
upstream_client::ensure_session(session_ptr s, const call_context& ctx) {
    auto deadline = clock::now() + budget_for(ctx);
    for (;;) {
        switch (s->life.next(closed_)) {
        case session_lifecycle::step::use:
            co_return std::nullopt;
        case session_lifecycle::step::ended:
            co_return fail(upstream_failure::kind::connect_error,
                           "upstream " + cfg_.id + " session was ended");
        case session_lifecycle::step::wait: {
            // Single-flight: later callers wait for the handshake already under way, but no
            // longer than their own budget (a /health probe must not inherit a 60 s wait).
            auto done = s->handshake_done;
            asio::steady_timer bound(ex_, deadline);
            boost::system::error_code done_ec, bound_ec; // cancellation is the normal wake-up
            auto which =
                co_await (done->async_wait(asio::redirect_error(asio::use_awaitable, done_ec)) ||
                          bound.async_wait(asio::redirect_error(asio::use_awaitable, bound_ec)));
            if (which.index() == 1)
                co_return fail(upstream_failure::kind::timeout,
                               "upstream " + cfg_.id + " handshake still under way after " +
                                   std::to_string(budget_for(ctx).count()) + " ms");
            if (s->life.next(closed_) == session_lifecycle::step::handshake)
                co_return fail(upstream_failure::kind::connect_error,
                               "upstream " + cfg_.id + " handshake failed");
            continue;
        }
        case session_lifecycle::step::handshake:
            break;
        }
        s->life.begin_handshake();
        s->handshake_done = std::make_shared<asio::steady_timer>(ex_, clock::time_point::max());
        std::optional<upstream_failure> failure;
        try {
            failure = co_await handshake(s, ctx);
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

void upstream_client::retire(std::chrono::steady_clock::duration bound) {
    if (closed_)
        return;
    if (in_flight_ == 0) {
        close();
        return;
    }
    retiring_ = true;
    auto timer = std::make_shared<asio::steady_timer>(ex_, bound);
    timer->async_wait([weak = weak_from_this(), timer](boost::system::error_code ec) {
        if (auto self = weak.lock(); self && !ec && !self->closed_)
            self->close(); // the drain's bound: what is still in flight is cut
    });
}

std::optional<upstream_client::session_address>
upstream_client::address_of(const std::string& bridge) const {
    auto it = bridged_.find(bridge);
    if (it == bridged_.end() || !it->second->life.ready() || !it->second->ep ||
        it->second->state.id.empty())
        return std::nullopt;
    const auto& s = *it->second;
    return session_address{s.state.id, s.state.protocol_version, s.ep->index};
}

bool upstream_client::retire_bridge(const std::string& bridge) {
    auto it = bridged_.find(bridge);
    if (it != bridged_.end() && it->second->life.in_use())
        return false;
    end_bridge(bridge);
    return true;
}

void upstream_client::end_bridge(const std::string& bridge) {
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
        asio::co_spawn(ex_, send_delete(*s->ep, s->state, s->caller), asio::detached);
}

void upstream_client::close() {
    closed_ = true;
    if (probing_)
        board_->on_probe_round(nullptr);
    std::vector<std::string> all;
    for (auto& [bridge, s] : bridged_)
        all.push_back(bridge);
    for (auto& b : all)
        end_bridge(b);
    for (const auto& r : profile_roots_)
        if (r) {
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
    if (listen_conn_)
        std::exchange(listen_conn_, nullptr)->lowest().close();
    if (listen_pause_)
        listen_pause_->cancel();
}

} // namespace gate::transport
