// Subscriptions gate holds at one upstream on behalf of its clients: resources/subscribe on
// the root session of a 2025-11-25 upstream, and at a 2026-07-28 upstream gate's own
// subscriptions/listen stream, which also carries that upstream's list changes (its lists are
// cached, and every client hears of the change).
#include "gateway/upstream/upstream_client.hpp"
#include "protocol/modern_request.hpp"
#include "transport/process/version.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace gate::transport {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {
// The pause before a listen the upstream closed is opened again.
constexpr auto relisten_pause = std::chrono::seconds(1);
} // namespace

asio::awaitable<std::optional<upstream_failure>>
upstream_client::hold_subscription(const std::string& uri) {
    if (held_uris_[uri]++ > 0)
        co_return std::nullopt; // held already: its updates reach every holder
    auto drop = [&](upstream_failure why) -> std::optional<upstream_failure> {
        if (auto it = held_uris_.find(uri); it != held_uris_.end() && --it->second == 0)
            held_uris_.erase(it);
        return why;
    };
    if (per_caller_)
        // gate's own session carries no caller's credential, and a subscription held there
        // would serve every principal: each client subscribes on its own bridged session.
        co_return drop(upstream_failure{
            upstream_failure::kind::protocol,
            "upstream " + cfg_.id +
                " takes each caller's own credential: gate holds no shared subscription there",
            0, std::nullopt, std::chrono::milliseconds(0), false});
    auto admitted = co_await admit(guard_use::invocation);
    if (auto* refused = std::get_if<upstream_failure>(&admitted))
        co_return drop(std::move(*refused));
    auto ticket = std::move(std::get<guard_ticket>(admitted));
    if (auto failure = co_await ensure_session(root_, call_context{})) {
        co_await ticket.settle(&*failure);
        co_return drop(std::move(*failure));
    }
    if (modern_) {
        co_await ticket.settle(nullptr);
        if (!listen_filter().resource_subscriptions.contains(uri))
            co_return drop(
                upstream_failure{upstream_failure::kind::protocol,
                                 "upstream " + cfg_.id + " does not offer resource subscriptions",
                                 0, std::nullopt, std::chrono::milliseconds(0), false});
        refresh_listen();
        co_return std::nullopt;
    }
    auto reply = co_await send_request("resources/subscribe", json::object{{"uri", uri}}, {});
    co_await ticket.settle(std::get_if<upstream_failure>(&reply));
    if (auto* f = std::get_if<upstream_failure>(&reply))
        co_return drop(std::move(*f));
    auto& answer = std::get<upstream_message>(reply);
    if (answer.has("error"))
        co_return drop(
            upstream_failure{upstream_failure::kind::protocol, "refused", 0, std::move(answer)});
    co_return std::nullopt;
}

void upstream_client::release_subscription(const std::string& uri) {
    auto it = held_uris_.find(uri);
    if (it == held_uris_.end() || --it->second > 0)
        return;
    held_uris_.erase(it);
    if (closed_)
        return;
    if (modern_) {
        refresh_listen();
        return;
    }
    asio::co_spawn(
        ex_,
        [self = shared_from_this(), uri]() -> asio::awaitable<void> {
            if (self->root_->life.ready()) {
                call_context upkeep;
                upkeep.use = guard_use::upkeep;
                co_await self->request("resources/unsubscribe", json::object{{"uri", uri}}, upkeep);
            }
        },
        asio::detached);
}

protocol::subscription_filter upstream_client::listen_filter() const {
    protocol::subscription_filter wanted;
    wanted.tools_list_changed = wanted.prompts_list_changed = wanted.resources_list_changed = true;
    for (const auto& [uri, holders] : held_uris_)
        wanted.resource_subscriptions.insert(uri);
    auto* caps = root_->init_result.if_contains("capabilities");
    return wanted.honoured_by(caps && caps->is_object() ? caps->get_object() : json::object{});
}

void upstream_client::refresh_listen() {
    if (!modern_ || closed_)
        return;
    if (listen_pause_)
        listen_pause_->cancel();
    asio::co_spawn(ex_, listen_modern(++listen_version_), asio::detached);
}

asio::awaitable<void> upstream_client::listen_modern(std::uint64_t version) {
    auto self = shared_from_this(); // a retired client lives until its streams end
    auto current = [&] { return !closed_ && version == listen_version_; };
    while (current()) {
        auto admitted = co_await admit(guard_use::upkeep);
        if (!std::holds_alternative<guard_ticket>(admitted))
            co_return; // circuit open: the handshake after it closes listens again
        auto ticket = std::move(std::get<guard_ticket>(admitted));
        auto failure = co_await ensure_session(root_, call_context{});
        co_await ticket.settle(failure ? &*failure : nullptr);
        if (failure)
            co_return; // the next handshake or hold listens again
        auto filter = listen_filter();
        if (filter.empty() || !current()) {
            if (filter.empty() && listen_conn_)
                std::exchange(listen_conn_, nullptr)->lowest().close();
            co_return;
        }
        auto cred = co_await credential(root_.get());
        if (!std::holds_alternative<std::string>(cred))
            co_return;
        auto c = co_await connect(*root_->ep);
        if (!std::holds_alternative<upstream_connection>(c))
            co_return;
        auto conn =
            std::make_shared<upstream_connection>(std::move(std::get<upstream_connection>(c)));
        json::object params{{"notifications", filter.to_json()}};
        protocol::add_envelope(params, root_->capabilities,
                               json::object{{"name", "gate"}, {"version", gate_version}});
        json::object msg{{"jsonrpc", "2.0"},
                         {"id", "gate-listen-" + std::to_string(version)},
                         {"method", "subscriptions/listen"},
                         {"params", std::move(params)}};
        auto written = post_wire(*root_->ep, outgoing(msg), root_->state, call_context{},
                                 std::get<std::string>(cred));
        if (auto* refused = std::get_if<upstream_failure>(&written)) {
            spdlog::warn("upstream {}: {}", cfg_.id, refused->message);
            co_return;
        }
        auto& wire = std::get<std::string>(written);
        bool acknowledged = false;
        // Refused or not offered: list changes fall back to the cache's TTL.
        co_await follow_stream(
            *conn, wire, true, [] {}, [&] { return !closed_; },
            [&](upstream_message message) {
                auto* m = message.body()["method"].if_string();
                if (m && *m == protocol::subscriptions_acknowledged) {
                    // The new filter is in force: the stream it replaces can go.
                    acknowledged = true;
                    if (auto old = std::exchange(listen_conn_, conn); old && old != conn)
                        old->lowest().close();
                    return;
                }
                protocol::strip_subscription(message.body());
                dispatch(*root_, std::move(message));
            });
        if (listen_conn_ == conn)
            listen_conn_.reset();
        if (!acknowledged || !current())
            co_return; // refused, or replaced by a newer filter
        // The upstream ended a working listen (a restart, an idle cut): listen again after a
        // pause, unless a newer filter takes over meanwhile.
        listen_pause_ = std::make_shared<asio::steady_timer>(ex_, relisten_pause);
        boost::system::error_code wait_ec;
        co_await listen_pause_->async_wait(asio::redirect_error(asio::use_awaitable, wait_ec));
    }
}

} // namespace gate::transport
