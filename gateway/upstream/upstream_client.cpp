// The client of one upstream: its construction, and where the upstream's own messages outside
// any call go (gate answers its root sessions' requests itself).
#include "gateway/upstream/upstream_client.hpp"

#include "actors/endpoint_rotation.hpp"
#include "gateway/fleet/fleet_store.hpp"
#include "gateway/operations/traffic_tap.hpp"
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

namespace {
// The root session declares what gate can bridge (servers register some tools only for
// clients that sample or elicit); lists for a client are asked on the root session of its
// profile, and each bridged session declares exactly what its client declared.
json::object root_capabilities() {
    return protocol::capabilities_of(protocol::full_profile);
}
} // namespace

upstream_client::upstream_client(asio::any_io_executor ex, config::upstream cfg)
    : ex_(std::move(ex)), watch_(deadline_watch::of(ex_)), cfg_(std::move(cfg)),
      board_(std::make_shared<guard_board>(cfg_)), root_(std::make_shared<upstream_session>()) {
    credential_ = upstream_credential::make(ex_, cfg_);
    per_caller_ = transport::per_caller(cfg_.auth);
    root_->capabilities = root_capabilities();
    modern_ = cfg_.protocol == config::protocol_mode::v2026_07_28;
    era_known_ = cfg_.protocol != config::protocol_mode::auto_;
    for (const auto& url : cfg_.urls) {
        auto ep = std::make_unique<endpoint>();
        ep->index = endpoints_.size();
        ep->url = url;
        if (auto u = boost::urls::parse_uri(url)) {
            ep->tls = u->scheme() == "https";
            ep->host = u->host();
            ep->port = u->has_port() ? std::string(u->port()) : (ep->tls ? "443" : "80");
            ep->target = u->encoded_target().empty() ? "/" : std::string(u->encoded_target());
            ep->authority = ep->host + ":" + ep->port;
        }
        endpoints_.push_back(std::move(ep));
    }
}

upstream_client::~upstream_client() = default;

std::chrono::milliseconds upstream_client::budget_for(const call_context& ctx) const {
    auto budget = std::chrono::milliseconds(cfg_.timeouts.request_ms);
    return ctx.timeout && *ctx.timeout < budget ? *ctx.timeout : budget;
}

void upstream_client::dispatch(const upstream_session& origin, upstream_message message) {
    bool is_request = message.body().contains("id");
    if (origin.bridge.empty() && is_request) {
        // The root session has no client behind it: gate answers for itself. It has no roots
        // to offer and nobody to sample or elicit from.
        json::object reply{{"jsonrpc", "2.0"}, {"id", message.body()["id"]}};
        std::string method;
        if (auto* m = message.body().if_contains("method"); m && m->is_string())
            method = std::string(m->get_string());
        if (method == "roots/list")
            reply["result"] = {{"roots", json::array{}}};
        else if (method == "ping")
            reply["result"] = json::object{};
        else
            reply["error"] = {{"code", -32601},
                              {"message", "gate's shared session has no client to ask; " + method +
                                              " is bridged only during a client's call"}};
        // The id as the upstream wrote it: the reply is read from the request's text.
        asio::co_spawn(
            ex_,
            [self = shared_from_this(), reply = std::move(reply),
             source = message.raw()]() mutable -> asio::awaitable<void> {
                co_await self->deliver("", std::move(reply), std::move(source));
            },
            asio::detached);
        return;
    }
    if (observer_)
        observer_->message(origin.bridge, std::move(message));
}

} // namespace gate::transport
