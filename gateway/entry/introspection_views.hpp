// The introspection views behind the route table's rows (spec: Introspection endpoints):
// GET /api/federation, /api/explain, /api/traffic and /api/catalog, each for the viewer the
// chain's entry admitted (its door, pipeline::door::view), on the snapshot that viewer loaded;
// and an icon another instance listed, learnt (icon_proxy::learner).
#pragma once

#include "gateway/entry/health.hpp"
#include "gateway/entry/introspection.hpp"
#include "gateway/mcp/icon_proxy.hpp"
#include "gateway/mcp/list_methods.hpp"
#include "gateway/operations/traffic_history.hpp"
#include "gateway/upstream/live_federation.hpp"
#include "transport/http/http_reply.hpp"
#include "transport/http/http_server.hpp"

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <memory>
#include <vector>

namespace gate::actors {
class actor_directory;
}

namespace gate::gateway {

class fleet_store;

class introspection_views {
public:
    introspection_views(view_source& live, health_watch& health, icon_proxy& icons,
                        list_methods& lists, const actors::actor_directory& actors,
                        const traffic_history& traffic,
                        std::shared_ptr<const discovery_report> discovery)
        : live_(live), health_(health), icons_(icons), lists_(lists), actors_(actors),
          traffic_(traffic), discovery_(std::move(discovery)) {}

    // The fleet's shared store, once the gateway joined one (its state is part of the view).
    void share_through(std::shared_ptr<fleet_store> fleet) { fleet_ = std::move(fleet); }
    // The other io threads' histories, each copied on its own thread (docs/io-threads.md):
    // /api/traffic adds them to this thread's.
    using other_histories = std::function<
        boost::asio::awaitable<std::vector<std::shared_ptr<const traffic_history>>>()>;
    void merge_from(other_histories others) { others_ = std::move(others); }

    // GET /api/federation.
    boost::asio::awaitable<transport::http_reply> federation(request_context& rec);
    // GET /api/explain: which rule decides the invocation the query names, for the caller.
    transport::http_reply explain(const request_context& rec,
                                  const transport::http_request& req) const;
    // GET /api/traffic: this instance's short history of requests (every io thread's), as the
    // caller may see it.
    boost::asio::awaitable<transport::http_reply> traffic(const request_context& rec) const;
    // GET /api/catalog: gate's own lists and the viewer's own listings of per-caller upstreams.
    boost::asio::awaitable<transport::http_reply> catalog(request_context& rec);
    // An icon another instance (or this one before a restart) listed: the upstream's identity
    // and gate's own lists, rewritten here so the icon proxy knows it.
    boost::asio::awaitable<void> learn_icons(std::shared_ptr<const actors::snapshot> snap,
                                             std::size_t upstream);

private:
    view_source& live_;
    health_watch& health_;
    icon_proxy& icons_;
    list_methods& lists_;
    const actors::actor_directory& actors_;
    const traffic_history& traffic_;
    std::shared_ptr<const discovery_report> discovery_;
    std::shared_ptr<fleet_store> fleet_;
    other_histories others_;
};

} // namespace gate::gateway
