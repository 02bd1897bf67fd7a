// How the gateway's parts are wired together: each upstream client's session-wide traffic to
// gateway/mcp/upstream_traffic, a list's news to every connected client, a downstream
// session's end to every upstream, the held subscriptions, the server requests and the keeper.
#include "actors/bridging/bridge_messages.hpp"
#include "gateway/entry/gateway_impl.hpp"

#include <boost/json/serialize.hpp>

namespace gate::transport {

namespace json = boost::json;

namespace {

// What an upstream says outside any call's observer (its sessions' GET streams, a call without
// one), heard by the gateway as that upstream's.
class session_traffic final : public upstream_observer {
public:
    session_traffic(gateway::impl& g, const upstream_client* from) : g_(g), from_(from) {}
    void message(const std::string& bridge, upstream_message m) override {
        g_.upstream_news.on_message(from_, bridge, std::move(m));
    }

private:
    gateway::impl& g_;
    const upstream_client* from_;
};
} // namespace

void gateway::impl::wire(const std::shared_ptr<upstream_client>& client) {
    client->start_health_checks();
    client->watch_definitions(definitions);
    if (fleet)
        client->share_through(fleet);
    if (parts.tap)
        client->record_through(parts.tap);
    client->observe(std::make_unique<session_traffic>(*this, client.get()));
}

void gateway::impl::broadcast(const json::object& news) {
    sessions.broadcast(json::serialize(news));
    listens.deliver_to_all(news);
}

void gateway::impl::session_ended(std::string session) {
    // Every upstream session of the client ends now, those the keeper has not heard of yet
    // (a handshake that failed before its first call went out) included.
    for (const auto& c : live->clients)
        c->end_bridge(session);
    holds.release_all(session);
    server_requests.forget_session(session);
    keeper.tell(bridge_session_ended{std::move(session)});
}

} // namespace gate::transport
