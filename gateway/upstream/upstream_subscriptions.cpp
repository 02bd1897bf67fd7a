// Subscriptions gate holds at one upstream on behalf of its clients: resources/subscribe on
// the root session of a 2025-11-25 upstream, and at a 2026-07-28 upstream gate's own
// subscriptions/listen stream, which also carries that upstream's list changes (its lists are
// cached, and every client hears of the change).
#include "gateway/upstream/stream_follower.hpp"
#include "process/version.hpp"
#include "protocol/modern_request.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {
// The pause before a listen the upstream closed is opened again.
constexpr auto relisten_pause = std::chrono::seconds(1);
} // namespace

asio::awaitable<std::optional<gateway::upstream_failure>>
stream_follower::hold_subscription(const std::string& uri) {
    if (held_uris_[uri]++ > 0)
        co_return std::nullopt; // held already: its updates reach every holder
    auto drop = [&](gateway::upstream_failure why) -> std::optional<gateway::upstream_failure> {
        if (auto it = held_uris_.find(uri); it != held_uris_.end() && --it->second == 0)
            held_uris_.erase(it);
        return why;
    };
    if (state_.per_caller)
        // gate's own session carries no caller's credential, and a subscription held there
        // would serve every principal: each client subscribes on its own bridged session.
        co_return drop(gateway::upstream_failure{
            gateway::upstream_failure::kind::protocol,
            "upstream " + state_.cfg.id +
                " takes each caller's own credential: gate holds no shared subscription there",
            0, std::nullopt, std::chrono::milliseconds(0), false});
    auto admitted = co_await guards_.admit(actors::guard_use::invocation);
    if (auto* refused = std::get_if<gateway::upstream_failure>(&admitted))
        co_return drop(std::move(*refused));
    auto ticket = std::move(std::get<gateway::upstream_guards::ticket>(admitted));
    if (auto failure =
            co_await sessions_.ensure_session(sessions_.root(), gateway::call_context{})) {
        co_await ticket.settle(&*failure);
        co_return drop(std::move(*failure));
    }
    if (state_.modern) {
        co_await ticket.settle(nullptr);
        if (!listen_filter().resource_subscriptions.contains(uri))
            co_return drop(gateway::upstream_failure{
                gateway::upstream_failure::kind::protocol,
                "upstream " + state_.cfg.id + " does not offer resource subscriptions", 0,
                std::nullopt, std::chrono::milliseconds(0), false});
        refresh_listen();
        co_return std::nullopt;
    }
    auto reply = co_await requests_.send("resources/subscribe", json::object{{"uri", uri}}, {});
    co_await ticket.settle(std::get_if<gateway::upstream_failure>(&reply));
    if (auto* f = std::get_if<gateway::upstream_failure>(&reply))
        co_return drop(std::move(*f));
    auto& answer = std::get<gateway::upstream_message>(reply);
    if (answer.has("error"))
        co_return drop(gateway::upstream_failure{gateway::upstream_failure::kind::protocol,
                                                 "refused", 0, std::move(answer)});
    co_return std::nullopt;
}

void stream_follower::release_subscription(const std::string& uri) {
    auto it = held_uris_.find(uri);
    if (it == held_uris_.end() || --it->second > 0)
        return;
    held_uris_.erase(it);
    if (state_.closed)
        return;
    if (state_.modern) {
        refresh_listen();
        return;
    }
    asio::co_spawn(
        state_.ex,
        [keep = state_.hold(), this, uri]() -> asio::awaitable<void> {
            if (sessions_.root()->life.ready()) {
                gateway::call_context upkeep;
                upkeep.use = actors::guard_use::upkeep;
                co_await sender_.request("resources/unsubscribe", json::object{{"uri", uri}},
                                         upkeep);
            }
        },
        asio::detached);
}

asio::awaitable<std::optional<gateway::upstream_failure>>
stream_follower::hold_task_news(const std::string& task_id) {
    auto refused = [&](std::string why) {
        return gateway::upstream_failure{gateway::upstream_failure::kind::protocol,
                                         "upstream " + state_.cfg.id + " " + std::move(why),
                                         0,
                                         std::nullopt,
                                         std::chrono::milliseconds(0),
                                         false};
    };
    if (state_.per_caller)
        // gate holds no shared stream where each caller brings its own credential.
        co_return refused("takes each caller's own credential: gate holds no task listen there");
    if (held_tasks_[task_id]++ > 0)
        co_return std::nullopt;
    auto drop = [&](gateway::upstream_failure why) -> std::optional<gateway::upstream_failure> {
        if (auto it = held_tasks_.find(task_id); it != held_tasks_.end() && --it->second == 0)
            held_tasks_.erase(it);
        return why;
    };
    auto admitted = co_await guards_.admit(actors::guard_use::invocation);
    if (auto* no = std::get_if<gateway::upstream_failure>(&admitted))
        co_return drop(std::move(*no));
    auto ticket = std::move(std::get<gateway::upstream_guards::ticket>(admitted));
    auto failure = co_await sessions_.ensure_session(sessions_.root(), gateway::call_context{});
    co_await ticket.settle(failure ? &*failure : nullptr);
    if (failure)
        co_return drop(std::move(*failure));
    // Known after the handshake: a 2025 upstream has no listen.
    if (!state_.modern || !listen_filter().task_ids.contains(task_id))
        co_return drop(refused("does not offer the tasks extension's notifications"));
    refresh_listen();
    co_return std::nullopt;
}

void stream_follower::release_task_news(const std::string& task_id) {
    auto it = held_tasks_.find(task_id);
    if (it == held_tasks_.end() || --it->second > 0)
        return;
    held_tasks_.erase(it);
    refresh_listen();
}

protocol::subscription_filter stream_follower::listen_filter() const {
    protocol::subscription_filter wanted;
    wanted.tools_list_changed = wanted.prompts_list_changed = wanted.resources_list_changed = true;
    for (const auto& [uri, holders] : held_uris_)
        wanted.resource_subscriptions.insert(uri);
    for (const auto& [task, holders] : held_tasks_)
        wanted.task_ids.insert(task);
    auto* caps = sessions_.root()->init_result.if_contains("capabilities");
    return wanted.honoured_by(caps && caps->is_object() ? caps->get_object() : json::object{});
}

void stream_follower::refresh_listen() {
    if (!state_.modern || state_.closed)
        return;
    if (listen_pause_)
        listen_pause_->cancel();
    asio::co_spawn(state_.ex, listen_modern(++listen_version_), asio::detached);
}

asio::awaitable<void> stream_follower::listen_modern(std::uint64_t version) {
    auto keep = state_.hold(); // a retired client lives until its streams end
    auto current = [&] { return !state_.closed && version == listen_version_; };
    const auto& root = sessions_.root();
    while (current()) {
        auto admitted = co_await guards_.admit(actors::guard_use::upkeep);
        if (!std::holds_alternative<gateway::upstream_guards::ticket>(admitted))
            co_return; // circuit open: the handshake after it closes listens again
        auto ticket = std::move(std::get<gateway::upstream_guards::ticket>(admitted));
        auto failure = co_await sessions_.ensure_session(root, gateway::call_context{});
        co_await ticket.settle(failure ? &*failure : nullptr);
        if (failure)
            co_return; // the next handshake or hold listens again
        auto filter = listen_filter();
        if (filter.empty() || !current()) {
            if (filter.empty() && listen_conn_)
                std::exchange(listen_conn_, nullptr)->lowest().close();
            co_return;
        }
        auto cred = co_await credentials_.line(root->caller.get());
        if (!std::holds_alternative<std::string>(cred))
            co_return;
        auto c = co_await exchange_.connect(*root->ep);
        if (!std::holds_alternative<transport::upstream_connection>(c) || !current())
            co_return; // unreachable, or a newer filter took over while connecting
        auto conn = std::make_shared<transport::upstream_connection>(
            std::move(std::get<transport::upstream_connection>(c)));
        json::object params{{"notifications", filter.to_json()}};
        protocol::add_envelope(params, *root->capabilities,
                               json::object{{"name", "gate"}, {"version", process::gate_version}});
        json::object msg{{"jsonrpc", "2.0"},
                         {"id", "gate-listen-" + std::to_string(version)},
                         {"method", "subscriptions/listen"},
                         {"params", std::move(params)}};
        auto written =
            exchange_.post_wire(*root->ep, gateway::outgoing_message::of(msg), root->state,
                                gateway::call_context{}, std::get<std::string>(cred));
        if (auto* refused = std::get_if<gateway::upstream_failure>(&written)) {
            spdlog::warn("upstream {}: {}", state_.cfg.id, refused->message);
            co_return;
        }
        auto& wire = std::get<std::string>(written);
        bool acknowledged = false;
        // Refused or not offered: list changes fall back to the cache's TTL.
        co_await exchange_.follow_stream(
            *conn, wire, true, [] {}, [&] { return !state_.closed; },
            [&](gateway::upstream_message message) {
                auto* m = message.body()["method"].if_string();
                if (m && *m == protocol::subscriptions_acknowledged) {
                    // The new filter is in force: the stream it replaces can go.
                    acknowledged = true;
                    if (auto old = std::exchange(listen_conn_, conn); old && old != conn)
                        old->lowest().close();
                    return;
                }
                protocol::strip_subscription(message.body());
                heard_.message(root->bridge, std::move(message));
            });
        if (listen_conn_ == conn)
            listen_conn_.reset();
        if (!acknowledged || !current())
            co_return; // refused, or replaced by a newer filter
        // The upstream ended a working listen (a restart, an idle cut): listen again after a
        // pause, unless a newer filter takes over meanwhile.
        listen_pause_ = std::make_shared<asio::steady_timer>(state_.ex, relisten_pause);
        boost::system::error_code wait_ec;
        co_await listen_pause_->async_wait(asio::redirect_error(asio::use_awaitable, wait_ec));
    }
}

} // namespace gate::gateway

namespace gate::gateway {

void stream_follower::root_published(std::uint64_t generation) {
    if (state_.modern)
        refresh_listen(); // list changes and held URIs, on gate's own listen
    else if (generation > 1 && !held_uris_.empty())
        resubscribe();
}

void stream_follower::resubscribe() {
    // A new root session (the upstream restarted): the subscriptions gate held on the old one
    // are made again, so their holders keep hearing of updates.
    std::vector<std::string> uris;
    for (const auto& [uri, holders] : held_uris_)
        uris.push_back(uri);
    asio::co_spawn(
        state_.ex,
        [keep = state_.hold(), this, uris = std::move(uris)]() -> asio::awaitable<void> {
            gateway::call_context upkeep;
            upkeep.use = actors::guard_use::upkeep;
            for (const auto& uri : uris)
                co_await sender_.request("resources/subscribe", json::object{{"uri", uri}}, upkeep);
        },
        asio::detached);
}

void stream_follower::close() {
    if (listen_conn_)
        std::exchange(listen_conn_, nullptr)->lowest().close();
    if (listen_pause_)
        listen_pause_->cancel();
}

} // namespace gate::gateway
