// How an upstream session opens: initialize and notifications/initialized (or, at a
// 2026-07-28 upstream, server/discover), over the replicas in turn, then its GET stream.
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

namespace {
// How long a handshake waits for the new session's GET stream to open.
constexpr auto stream_open_wait = std::chrono::seconds(2);
} // namespace

asio::awaitable<std::optional<upstream_failure>>
upstream_client::handshake(session_ptr s, const call_context& caller) {
    // New sessions go round-robin over the replicas; a connect failure moves to the next one.
    // All attempts share the caller's budget (a /health probe's 5 s). The caller's sink is
    // not the handshake's: anything sent during it is session-wide.
    auto ctx = call_context::traced(caller.traceparent);
    ctx.timeout = caller.timeout;
    auto deadline = clock::now() + budget_for(ctx);
    std::optional<upstream_failure> last;
    for (auto index : rotation_order(board_->view()->in_rotation, turn_)) {
        auto& ep = *endpoints_[index];
        if (!era_known_ || modern_) {
            // 2026-07-28 has no handshake: the root session's discovery stands in for it (and,
            // for `auto`, decides the era); a bridged session is ready at once.
            json::object discovered;
            // A per-caller session discovers with its own credential: what the upstream
            // offers may depend on who asks.
            if (s == root_ || !era_known_ || (per_caller_ && s->caller)) {
                auto failure = co_await discover(ep, ctx, deadline, discovered, s.get());
                if (failure && failure->what == upstream_failure::kind::connect_error) {
                    last = failure;
                    continue;
                }
                if (failure)
                    co_return failure;
            }
            if (modern_) {
                if (!discovered.empty())
                    s->init_result = std::move(discovered);
                s->state = session_state{{}, std::string(protocol::modern_protocol_version)};
                s->ep = &ep;
                s->life.publish();
                if (s == root_)
                    refresh_listen(); // list changes and held URIs, on gate's own listen
                co_return std::nullopt;
            }
        }
        json::object init{{"jsonrpc", "2.0"},
                          {"id", next_id_++},
                          {"method", "initialize"},
                          {"params",
                           {{"protocolVersion", client_protocol_version},
                            {"capabilities", s->capabilities},
                            {"clientInfo", {{"name", "gate"}, {"version", gate_version}}}}}};
        auto r = co_await exchange(ep, outgoing(init), session_state{}, ctx, deadline, s.get());
        if (auto* f = std::get_if<upstream_failure>(&r)) {
            last = *f;
            if (f->what == upstream_failure::kind::connect_error)
                continue;
            co_return last;
        }
        auto& answer = std::get<http_answer>(r);
        if (answer.status != 200 || !answer.message)
            co_return fail(upstream_failure::kind::http_status,
                           "initialize answered HTTP " + std::to_string(answer.status),
                           answer.status);
        auto* result = answer.message->body().if_contains("result");
        if (!result || !result->is_object()) {
            auto f = fail(upstream_failure::kind::protocol,
                          "initialize failed: " + answer.message->raw());
            f.answer = std::move(*answer.message);
            co_return f;
        }
        // The new session is built aside and published whole once `initialized` is through, so
        // requests never see a half-made one.
        session_state next;
        next.id = answer.session_id;
        if (auto* v = result->as_object().if_contains("protocolVersion"); v && v->is_string())
            next.protocol_version = std::string(v->get_string());
        json::object initialized{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};
        auto n = co_await exchange(ep, outgoing(initialized), next, ctx, deadline, s.get());
        if (auto* f = std::get_if<upstream_failure>(&n))
            co_return *f;
        if (s->life.ended() || closed_) {
            // Ended while the handshake ran: nobody will use it, so the upstream is told now.
            if (!next.id.empty())
                asio::co_spawn(ex_, send_delete(ep, std::move(next), s->caller), asio::detached);
            co_return fail(upstream_failure::kind::connect_error, "the session was ended");
        }
        s->init_result = std::move(result->as_object());
        s->state = std::move(next);
        s->ep = &ep;
        auto generation = s->life.publish();
        if (s == root_ && generation > 1 && !held_uris_.empty()) {
            // A new root session (the upstream restarted): the subscriptions gate held on
            // the old one are made again, so their holders keep hearing of updates.
            std::vector<std::string> uris;
            for (const auto& [uri, holders] : held_uris_)
                uris.push_back(uri);
            asio::co_spawn(
                ex_,
                [self = shared_from_this(), uris = std::move(uris)]() -> asio::awaitable<void> {
                    call_context upkeep;
                    upkeep.use = guard_use::upkeep;
                    for (const auto& uri : uris)
                        co_await self->request("resources/subscribe", json::object{{"uri", uri}},
                                               upkeep);
                },
                asio::detached);
        }
        if (s->log_level) {
            json::object level{{"jsonrpc", "2.0"},
                               {"id", next_id_++},
                               {"method", "logging/setLevel"},
                               {"params", {{"level", *s->log_level}}}};
            co_await exchange(ep, outgoing(level), s->state, ctx, deadline, s.get());
        }
        // Only a sessionful upstream has a GET stream for the session's own traffic. It is
        // open before the first call goes out: a server that asks the client something
        // outside a call (roots/list at start) would otherwise speak into the void.
        if (!s->state.id.empty()) {
            auto opened = std::make_shared<asio::steady_timer>(ex_, clock::time_point::max());
            asio::co_spawn(ex_, listen(s, generation, opened), asio::detached);
            asio::steady_timer bound(ex_, std::min(deadline, clock::now() + stream_open_wait));
            boost::system::error_code opened_ec, bound_ec;
            co_await (opened->async_wait(asio::redirect_error(asio::use_awaitable, opened_ec)) ||
                      bound.async_wait(asio::redirect_error(asio::use_awaitable, bound_ec)));
        }
        co_return std::nullopt;
    }
    co_return last;
}

asio::awaitable<void> upstream_client::listen(session_ptr s, std::uint64_t generation,
                                              std::shared_ptr<asio::steady_timer> opened) {
    // Whatever happens, the handshake waiting for the stream is released.
    struct release {
        std::shared_ptr<asio::steady_timer>& t;
        ~release() {
            if (t)
                t->cancel();
        }
    } released{opened};
    auto self = shared_from_this(); // a retired client lives until its streams end
    auto alive = [&] { return !closed_ && s->life.current(generation); };
    while (alive()) {
        auto& ep = *s->ep;
        auto cred = co_await credential(s.get());
        if (!std::holds_alternative<std::string>(cred))
            co_return; // the next request's handshake tries again
        auto c = co_await connect(ep);
        if (!std::holds_alternative<upstream_connection>(c))
            co_return; // the next request's handshake opens a new stream
        auto conn =
            std::make_shared<upstream_connection>(std::move(std::get<upstream_connection>(c)));
        if (!alive()) {
            conn->lowest().close();
            co_return;
        }
        s->listening = conn;
        std::string wire = "GET " + ep.target + " HTTP/1.1\r\n";
        header_writer head(wire);
        head.field("Host", ep.authority);
        head.field("Accept", "text/event-stream");
        head.field("User-Agent", "gate/" + std::string(gate_version));
        head.field("Mcp-Session-Id", s->state.id);
        if (!s->state.protocol_version.empty())
            head.field("MCP-Protocol-Version", s->state.protocol_version);
        if (const auto& line = std::get<std::string>(cred); !line.empty())
            head.line(line);
        if (!head.ok()) {
            spdlog::warn("{}", refused_head(head).message);
            conn->lowest().close();
            co_return;
        }
        wire += "\r\n";
        // 405: the upstream offers no stream. Anything else but 200: the session is gone or
        // refused; the next request re-initializes and listens again.
        bool streamed = co_await follow_stream(
            *conn, wire, false,
            [&] {
                if (opened)
                    std::exchange(opened, nullptr)->cancel();
            },
            alive,
            [&](upstream_message message) {
                if (alive())
                    dispatch(*s, std::move(message));
            });
        if (s->listening == conn)
            s->listening.reset();
        if (!streamed || !alive())
            co_return;
        // The upstream closed a working stream (a restart, an idle cut): open it again after
        // a pause, unless the session ends meanwhile.
        s->relisten = std::make_shared<asio::steady_timer>(ex_, std::chrono::seconds(1));
        boost::system::error_code wait_ec;
        co_await s->relisten->async_wait(asio::redirect_error(asio::use_awaitable, wait_ec));
    }
}

asio::awaitable<std::optional<upstream_failure>>
upstream_client::discover(endpoint& ep, const call_context& ctx, clock::time_point deadline,
                          json::object& init_result, const upstream_session* origin) {
    json::object params;
    protocol::add_envelope(params, root_->capabilities,
                           json::object{{"name", "gate"}, {"version", gate_version}});
    json::object probe{{"jsonrpc", "2.0"},
                       {"id", next_id_++},
                       {"method", "server/discover"},
                       {"params", std::move(params)}};
    session_state modern_state{{}, std::string(protocol::modern_protocol_version)};
    auto r = co_await exchange(ep, outgoing(probe), modern_state, ctx, deadline, origin);
    if (auto* f = std::get_if<upstream_failure>(&r))
        co_return *f;
    auto& answer = std::get<http_answer>(r);
    auto* res = answer.message ? answer.message->body().if_contains("result") : nullptr;
    auto* result = res ? res->if_object() : nullptr;
    bool speaks_modern = false;
    if (result)
        if (auto* v = result->if_contains("supportedVersions"); v && v->is_array())
            for (auto& version : v->as_array())
                speaks_modern =
                    speaks_modern || (version.is_string() &&
                                      version.get_string() == protocol::modern_protocol_version);
    if (!era_known_) {
        // auto: anything but a discover result offering 2026-07-28 means the sessionful era.
        era_known_ = true;
        modern_ = speaks_modern;
        if (!modern_)
            co_return std::nullopt;
    }
    if (!speaks_modern) {
        auto f = fail(upstream_failure::kind::protocol,
                      "server/discover did not offer 2026-07-28 (HTTP " +
                          std::to_string(answer.status) + ")",
                      answer.status);
        if (answer.message)
            f.answer = std::move(*answer.message);
        co_return f;
    }
    // The discover result in the shape of an initialize result, for passthrough mode.
    init_result = json::object{{"protocolVersion", protocol::modern_protocol_version},
                               {"capabilities", (*result)["capabilities"]}};
    if (auto* meta = result->if_contains("_meta"); meta && meta->is_object())
        if (auto* info = meta->as_object().if_contains(protocol::meta_server_info))
            init_result["serverInfo"] = *info;
    if (auto* i = result->if_contains("instructions"))
        init_result["instructions"] = *i;
    co_return std::nullopt;
}

} // namespace gate::transport
