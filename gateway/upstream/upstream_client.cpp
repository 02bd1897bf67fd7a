// The client of one upstream: its units wired together, the calls in flight counted (a retired
// upstream drains before it closes), and where the upstream's own messages outside any call go
// (gate answers its root sessions' requests itself).
#include "gateway/upstream/upstream_client.hpp"

#include "protocol/gateway_error.hpp"
#include "protocol/json_rpc.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>

namespace gate::transport {

namespace asio = boost::asio;
namespace json = boost::json;

std::shared_ptr<upstream_client> upstream_client::make(asio::any_io_executor ex,
                                                       config::upstream cfg) {
    auto c = std::make_shared<upstream_client>(made{}, std::move(ex), std::move(cfg));
    c->state_.owner = c;
    return c;
}

upstream_client::upstream_client(made, asio::any_io_executor ex, config::upstream cfg)
    : state_(std::move(ex), std::move(cfg)), guards_(state_.cfg),
      credentials_(state_.ex, state_.cfg), recording_(state_.cfg.id),
      exchange_(state_, credentials_, guards_, heard_),
      sessions_(state_, exchange_, guards_, heard_, root_watch_),
      requests_(state_, sessions_, exchange_, guards_, recording_) {}

upstream_client::~upstream_client() = default;

asio::awaitable<upstream_reply>
upstream_client::request(std::string_view method, json::object params, const call_context& ctx) {
    auto admitted = co_await guards_.admit(ctx.use);
    if (auto* refused = std::get_if<upstream_failure>(&admitted))
        co_return std::move(*refused);
    co_return co_await request(method, std::move(params), ctx,
                               std::move(std::get<guard_ticket>(admitted)));
}

asio::awaitable<upstream_reply> upstream_client::request(std::string_view method,
                                                         json::object params,
                                                         const call_context& ctx,
                                                         guard_ticket admitted) {
    // Counted while in flight, so a retired upstream drains before it closes.
    struct in_flight {
        upstream_client& c;
        explicit in_flight(upstream_client& client) : c(client) { ++c.in_flight_; }
        ~in_flight() {
            if (--c.in_flight_ == 0 && c.retiring_ && !c.state_.closed)
                asio::post(c.state_.ex, [self = c.shared_from_this()] {
                    if (self->in_flight_ == 0 && !self->state_.closed)
                        self->close();
                });
        }
    } counted(*this);
    auto heard = recording_.before(params); // a copy only while recording
    auto reply = co_await requests_.send(method, std::move(params), ctx);
    if (heard)
        recording_.heard(ctx, std::move(*heard), method, reply);
    if (const auto* f = std::get_if<upstream_failure>(&reply); !admitted.settle_now(f))
        co_await admitted.settle(f);
    co_return reply;
}

asio::awaitable<std::variant<json::array, upstream_failure>>
upstream_client::fetch_list(std::string_view method, std::string_view key, const call_context& ctx,
                            std::vector<std::string>* sources) {
    // One admission for the whole list, however many pages the upstream serves it in.
    auto admitted = co_await guards_.admit(ctx.use);
    if (auto* refused = std::get_if<upstream_failure>(&admitted))
        co_return std::move(*refused);
    co_return co_await requests_.fetch_list(method, key, ctx,
                                            std::move(std::get<guard_ticket>(admitted)), sources);
}

void upstream_client::retire(std::chrono::steady_clock::duration bound) {
    if (state_.closed)
        return;
    if (in_flight_ == 0) {
        close();
        return;
    }
    retiring_ = true;
    auto timer = std::make_shared<asio::steady_timer>(state_.ex, bound);
    timer->async_wait([weak = weak_from_this(), timer](boost::system::error_code ec) {
        if (auto self = weak.lock(); self && !ec && !self->state_.closed)
            self->close(); // the drain's bound: what is still in flight is cut
    });
}

void upstream_client::close() {
    state_.closed = true;
    if (probing_)
        guards_.board()->on_probe_round(nullptr);
    sessions_.close();
    if (listen_conn_)
        std::exchange(listen_conn_, nullptr)->lowest().close();
    if (listen_pause_)
        listen_pause_->cancel();
}

std::vector<upstream_client::endpoint_health> upstream_client::endpoints() const {
    std::vector<endpoint_health> out;
    auto view = guards_.board()->view();
    for (const auto& ep : exchange_.endpoints())
        out.push_back(
            {ep->url, ep->index < view->in_rotation.size() && view->in_rotation[ep->index]});
    return out;
}

void upstream_client::session_traffic::message(const std::string& bridge, upstream_message m) {
    bool is_request = m.body().contains("id");
    if (bridge.empty() && is_request) {
        // The root session has no client behind it: gate answers for itself. Nobody's roots,
        // sampling or elicitation: an error the upstream can tell from an empty answer (an
        // empty roots list would be made up; one client's, which a server may keep for the
        // session, would reach every client the shared session serves).
        const auto& id = m.body()["id"];
        std::string method;
        if (auto* name = m.body().if_contains("method"); name && name->is_string())
            method = std::string(name->get_string());
        json::object reply{{"jsonrpc", "2.0"}, {"id", id}};
        if (method == "ping")
            reply["result"] = json::object{};
        else
            reply = protocol::make_gateway_error(
                protocol::gateway_error::no_client_to_ask, id,
                protocol::gateway_error_text(protocol::gateway_error::no_client_to_ask, {method}));
        // The id as the upstream wrote it: the reply is read from the request's text.
        asio::co_spawn(
            c_.state_.ex,
            [self = c_.shared_from_this(), reply = std::move(reply),
             source = m.raw()]() mutable -> asio::awaitable<void> {
                co_await self->deliver("", std::move(reply), std::move(source));
            },
            asio::detached);
        return;
    }
    if (c_.observer_)
        c_.observer_->message(bridge, std::move(m));
}

asio::awaitable<bool> upstream_client::cancel(const std::string& bridge,
                                              const json::value& upstream_id,
                                              const json::value* reason) {
    if (state_.modern) // the closing of the call's exchange is the cancellation
        co_return requests_.cancel(upstream_id, reason && reason->is_string()
                                                    ? std::string(reason->get_string())
                                                    : std::string("cancelled by the client"));
    co_return co_await deliver(bridge, protocol::make_cancelled(upstream_id, reason));
}

void upstream_client::root_watch::root_published(std::uint64_t generation) {
    if (c_.state_.modern)
        c_.refresh_listen(); // list changes and held URIs, on gate's own listen
    else if (generation > 1 && !c_.held_uris_.empty())
        c_.resubscribe();
}

void upstream_client::resubscribe() {
    // A new root session (the upstream restarted): the subscriptions gate held on the old one
    // are made again, so their holders keep hearing of updates.
    std::vector<std::string> uris;
    for (const auto& [uri, holders] : held_uris_)
        uris.push_back(uri);
    asio::co_spawn(
        state_.ex,
        [self = shared_from_this(), uris = std::move(uris)]() -> asio::awaitable<void> {
            call_context upkeep;
            upkeep.use = guard_use::upkeep;
            for (const auto& uri : uris)
                co_await self->request("resources/subscribe", json::object{{"uri", uri}}, upkeep);
        },
        asio::detached);
}

} // namespace gate::transport
