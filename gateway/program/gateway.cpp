// The gateway's facade (gateway.hpp): it owns the composition root and is what the program
// and the embedding API hold: listen, stop, drain, reload, and what the actors and the
// discovery poller tell it.
#include "gateway/program/gateway.hpp"

#include "actors/bridging/bridge_messages.hpp"
#include "actors/federation/router_messages.hpp"
#include "gateway/program/gateway_components.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway::program {

namespace asio = boost::asio;

gateway::gateway(asio::io_context& io, gateway_parts parts)
    : components_(std::make_unique<gateway_components>(io, std::move(parts), on_request)) {}

void gateway::retire_bridges(std::vector<actors::retired_bridge> gone) {
    auto view = components_->live.current_view();
    for (const auto& b : gone)
        if (auto* c = view->client(b.upstream); !c || c->sessions().retire_bridge(b.session))
            components_->requests.server_requests().forget_bridge(b.session, b.upstream);
}

gateway::~gateway() = default;

std::uint16_t gateway::listen(const std::string& host, std::uint16_t port) {
    auto bound = components_->server.listen(host, port);
    asio::co_spawn(components_->io, components_->downstream.sweep(), asio::detached);
    if (components_->fleet) {
        asio::co_spawn(components_->io, components_->downstream.fleet().follow(), asio::detached);
        auto& downstream = components_->downstream;
        asio::co_spawn(components_->io, components_->accounts.follow([&downstream] {
            return downstream.stopping();
        }),
                       asio::detached);
    }
    components_->warm_up(*components_->live);
    return bound;
}

void gateway::feed_sinks() {
    components_->sinks.feed();
}

void gateway::count_discovery(std::string_view outcome, std::size_t refused) {
    components_->stats.discovery_sync(outcome, refused);
}

std::optional<std::string> gateway::reload(std::shared_ptr<const config::document> next,
                                           std::string_view source) {
    auto& i = *components_;
    const auto& now = i.doc;
    if (!(next->server.budget == now.server.budget))
        return "server.budget cannot change without a restart (it is fixed at construction)";
    if (next->server.redis_url != now.server.redis_url)
        return "server.redisUrl cannot change without a restart (the fleet's shared store is "
               "joined at start)";
    if (!(next->auth == now.auth))
        return "the auth section cannot change without a restart";
    auto snap = actors::make_snapshot(std::move(next), i.live->snap->version + 1);
    auto view = make_view(i.io, snap, &*i.live);
    auto kept = i.take_clients(*view);
    spdlog::info("{} applied: {} upstream{} ({} discovered); {} kept with live sessions, {} new "
                 "or changed, {} retired",
                 source, view->clients.size(), view->clients.size() == 1 ? "" : "s",
                 snap->doc->discovered_count(), kept, view->clients.size() - kept,
                 i.live->clients.size() - kept);
    // One view from here on: requests that start load it, and each component that keeps
    // something made from it adopts it (gateway_components::tell_of_reloads).
    i.live.replace(view);
    return std::nullopt;
}

void gateway::drain(std::chrono::steady_clock::duration bound, std::function<void()> then) {
    // Requests already being answered finish (bounded); open GET streams end as their
    // sessions close.
    stop();
    components_->server.drain(bound, std::move(then));
}

void gateway::stop() {
    components_->server.stop();
    components_->downstream.stop();
    asio::post(components_->io, [i = components_.get()] {
        i->listens.close_all();
        i->downstream.table().close_all();
        for (const auto& c : i->live->clients)
            c->close();
    });
}

} // namespace gate::gateway::program
