// The credential header each request to an upstream carries: none, gate's own (a static
// secret, a client-credentials token), or the caller's (passthrough, token-exchange).
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

std::optional<std::variant<std::string, upstream_failure>>
upstream_client::credential_now(const upstream_session* origin) const {
    const auto* caller = per_caller_ && origin ? origin->caller.get() : nullptr;
    if (per_caller_ && !caller)
        return std::string();   // gate's own traffic: the upstream answers 401, not at fault
    if (caller && !credential_) // passthrough: the caller's token as it came
        return "Authorization: Bearer " + caller->token;
    if (!credential_)
        return std::string();
    return std::nullopt;
}

asio::awaitable<std::variant<std::string, upstream_failure>>
upstream_client::credential(const upstream_session* origin) {
    if (auto known = credential_now(origin))
        co_return std::move(*known);
    const auto* caller = per_caller_ && origin ? origin->caller.get() : nullptr;
    auto line =
        caller ? co_await credential_->header_line(*caller) : co_await credential_->header_line();
    if (auto* failed = std::get_if<credential_failure>(&line)) {
        auto f = fail(upstream_failure::kind::connect_error, std::move(failed->text));
        f.upstream_at_fault = false; // its token endpoint is, not the upstream
        co_return f;
    }
    co_return std::move(std::get<std::string>(line));
}

} // namespace gate::transport
