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
        if (auto* c = view->made(b.upstream); !c || c->sessions().retire_bridge(b.session))
            components_->requests.server_requests().forget_bridge(b.session, b.upstream);
}

gateway::~gateway() = default;

std::uint16_t gateway::listen(const std::string& host, std::uint16_t port) {
    auto bound = components_->server.listen(host, port);
    start();
    return bound;
}

void gateway::group(const std::vector<gateway*>& all) {
    if (all.size() < 2)
        return; // one thread: nothing to hand out, gather or tell
    auto members = std::make_shared<transport::http_server::group>();
    for (auto* g : all)
        members->push_back(&g->components_->server);
    std::vector<io_peers::member> peers;
    for (auto* g : all)
        peers.push_back({&g->components_->io, g->components_.get()});
    auto shared = std::make_shared<const io_peers>(std::move(peers));
    for (std::size_t i = 0; i < all.size(); ++i) {
        all[i]->components_->server.join(members, i);
        all[i]->components_->icons.share_registry_of(all.front()->components_->icons);
        if (i > 0)
            all[i]->components_->lean_on(*all.front()->components_);
        all[i]->components_->join_peers(shared);
    }
}

void gateway::start() {
    asio::co_spawn(components_->io, components_->downstream.sweep(), asio::detached);
    if (components_->fleet) {
        asio::co_spawn(components_->io, components_->downstream.fleet().follow(), asio::detached);
        auto& downstream = components_->downstream;
        // The accounts are the first io thread's (docs/io-threads.md): it follows for all.
        if (components_->parts.shard.index == 0)
            asio::co_spawn(components_->io, components_->accounts.follow([&downstream] {
                return downstream.stopping();
            }),
                           asio::detached);
    }
    components_->warm_up(*components_->live);
}

void gateway::feed_sinks() {
    components_->sinks.feed();
}

void gateway::audit(actors::audit_event e) {
    components_->sinks.audit(std::move(e));
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
    adopt(actors::make_snapshot(std::move(next), i.live->snap->version + 1), source);
    return std::nullopt;
}

std::shared_ptr<const actors::snapshot> gateway::snapshot() const {
    return components_->live->snap;
}

void gateway::adopt(std::shared_ptr<const actors::snapshot> snap, std::string_view source) {
    auto& i = *components_;
    auto view = make_view(i.io, snap, &*i.live, i.parts.upstreams.get(), i.maker());
    auto kept = i.take_clients(*view);
    // Said once, by the first io thread; the others apply the same reload to their own clients.
    if (i.parts.shard.index == 0)
        spdlog::info("{} applied: {} upstream{} ({} discovered); {} kept with live sessions, {} "
                     "new or changed, {} retired",
                     source, view->size(), view->size() == 1 ? "" : "s",
                     snap->doc->discovered_count(), kept, view->size() - kept,
                     i.live->size() - kept);
    else
        spdlog::debug("io thread {} took the {} too", i.parts.shard.index, source);
    // One view from here on: requests that start load it, and each component that keeps
    // something made from it adopts it (gateway_components::tell_of_reloads).
    i.live.replace(view);
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
        i->first_use.stop();
        i->live->for_each_made([](upstream_client& c) { c.close(); });
    });
}

} // namespace gate::gateway::program
