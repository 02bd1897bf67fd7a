// The client of one upstream: its units and roles wired together, its retirement (it closes
// once its sender has drained, or at the bound), and where the upstream's own messages outside
// any call go (gate answers its root sessions' requests itself).
#include "gateway/upstream/upstream_client.hpp"

#include "gateway/upstream/live_federation.hpp"
#include "protocol/gateway_error.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;

void federation_view::add(std::shared_ptr<upstream_siblings> entry,
                          std::shared_ptr<upstream_client> client) {
    entries_.push_back(std::move(entry));
    clients_.push_back(std::move(client));
}

void federation_view::add(std::shared_ptr<upstream_client> client) {
    auto entry = client->siblings();
    add(std::move(entry), std::move(client));
}

std::vector<std::shared_ptr<actors::guard_board>> federation_view::boards() const {
    std::vector<std::shared_ptr<actors::guard_board>> out;
    for (const auto& e : entries_)
        out.push_back(e->board);
    return out;
}

std::shared_ptr<const boost::json::object> federation_view::identity(std::size_t i) const {
    static const auto none = std::make_shared<const boost::json::object>();
    // This thread's client keeps what its siblings learn (told on its thread): no lock.
    auto known = clients_[i] ? clients_[i]->identity_held() : entries_[i]->identity();
    return known ? known : none;
}

std::optional<std::size_t> federation_view::index_of(std::string_view id) const {
    for (std::size_t i = 0; i < entries_.size(); ++i)
        if (entries_[i]->entry->id == id)
            return i;
    return std::nullopt;
}

std::optional<std::size_t> federation_view::index_of(const upstream_siblings& entry) const {
    for (std::size_t i = 0; i < entries_.size(); ++i)
        if (entries_[i].get() == &entry)
            return i;
    return std::nullopt;
}

const std::shared_ptr<upstream_client>& federation_view::client_at(std::size_t i) const {
    auto& c = clients_[i];
    if (!c && maker)
        c = maker(*this, i);
    return c;
}

std::vector<std::shared_ptr<upstream_client>> federation_view::made_clients() const {
    std::vector<std::shared_ptr<upstream_client>> made;
    for (const auto& c : clients_)
        if (c)
            made.push_back(c);
    return made;
}

upstream_client* federation_view::made(const std::string& id) const {
    auto i = index_of(id);
    return i ? clients_[*i].get() : nullptr;
}

const boost::json::object& upstream_client::identity() const {
    static const boost::json::object none;
    return state_.identity ? *state_.identity : none;
}

std::shared_ptr<upstream_client>
upstream_client::make(asio::any_io_executor ex, config::upstream cfg,
                      std::shared_ptr<upstream_siblings> siblings) {
    // The siblings were found by an equal entry: their copy serves this client too. A client
    // with none (one made on its own) is the only one of its entry.
    if (!siblings)
        siblings = std::make_shared<upstream_siblings>(std::move(cfg));
    auto c = std::make_shared<upstream_client>(made{}, ex, siblings->entry, siblings->board);
    siblings->join(c, ex);
    c->credentials_.share_among(*siblings, std::move(ex));
    c->state_.identity = siblings->identity(); // a handshake of another thread answered
    c->state_.facts = siblings->facts;
    c->state_.siblings = std::move(siblings);
    c->state_.owner = c;
    return c;
}

upstream_client::upstream_client(made, asio::any_io_executor ex,
                                 std::shared_ptr<const config::upstream> cfg,
                                 std::shared_ptr<actors::guard_board> board)
    : state_(std::move(ex), std::move(cfg)), guards_(state_.cfg, std::move(board)),
      credentials_(state_.ex, state_.cfg), recording_(state_.cfg.id),
      exchange_(state_, credentials_, guards_, heard_),
      sessions_(state_, exchange_, guards_, heard_, root_watch_),
      requests_(state_, sessions_, exchange_, guards_, recording_),
      sender_(state_, guards_, requests_, recording_, drain_watch_), keeper_(sessions_, requests_),
      lists_(state_, guards_, requests_),
      streams_({state_, guards_, credentials_, exchange_, sessions_, requests_, sender_, heard_}),
      health_(state_, guards_, exchange_, sessions_) {}

upstream_client::~upstream_client() = default;

void upstream_client::retire(std::chrono::steady_clock::duration bound) {
    if (state_.closed)
        return;
    if (sender_.calls_in_flight() == 0) {
        close();
        return;
    }
    state_.retiring = true;
    auto timer = std::make_shared<asio::steady_timer>(state_.ex, bound);
    timer->async_wait([weak = weak_from_this(), timer](boost::system::error_code ec) {
        if (auto self = weak.lock(); self && !ec && !self->state_.closed)
            self->close(); // the drain's bound: what is still in flight is cut
    });
}

void upstream_client::close() {
    state_.closed = true;
    health_.stop();
    sessions_.close();
    streams_.close();
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
                co_await self->sender_.deliver("", std::move(reply), std::move(source));
            },
            asio::detached);
        return;
    }
    if (c_.observer_)
        c_.observer_->message(bridge, std::move(m));
}

} // namespace gate::gateway
