// gate --record: each request sent to an upstream and its answer, heard by the tap.
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

void upstream_client::overheard(const call_context& ctx, std::chrono::system_clock::time_point at,
                                std::string_view method, json::object params,
                                const upstream_reply& reply) {
    heard_answer h;
    h.request = ctx.recorded;
    h.at = at;
    h.upstream = cfg_.id;
    h.method = std::string(method);
    h.params = std::move(params);
    if (auto* m = std::get_if<upstream_message>(&reply)) {
        h.reply = m->raw();
    } else {
        const auto& f = std::get<upstream_failure>(reply);
        using k = upstream_failure::kind;
        switch (f.what) {
        case k::connect_error:
            h.failure_kind = "connect_error";
            break;
        case k::timeout:
            h.failure_kind = "timeout";
            break;
        case k::http_status:
            h.failure_kind = "http_status";
            break;
        default:
            h.failure_kind = "protocol";
            break;
        }
        h.status = f.status;
        h.failure_message = f.message;
    }
    tap_->heard(std::move(h));
}

} // namespace gate::transport
