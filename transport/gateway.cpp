#include "actors/audit.hpp"
#include "actors/router_messages.hpp"
#include "transport/gateway_impl.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>
#include <caf/send.hpp>
#include <limits>
#include <spdlog/spdlog.h>

namespace gate::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using clock = std::chrono::steady_clock;

namespace {

constexpr auto idle_connection_timeout = std::chrono::seconds(120);
// A downstream session nobody used for this long, with no open stream, is forgotten so
// clients that never send DELETE cannot grow the gateway without bound.
constexpr auto downstream_session_idle = std::chrono::hours(1);
constexpr auto session_sweep_interval = std::chrono::minutes(1);

// Clients for a snapshot, reusing those of `previous` whose upstream entry is unchanged.
std::shared_ptr<const federation_view> make_view(asio::io_context& io,
                                                 std::shared_ptr<const snapshot> snap,
                                                 const federation_view* previous) {
    auto view = std::make_shared<federation_view>();
    view->snap = std::move(snap);
    for (const auto& u : view->snap->doc->upstreams) {
        std::shared_ptr<upstream_client> reused;
        if (previous)
            for (const auto& c : previous->clients)
                if (c->config() == u)
                    reused = c;
        view->clients.push_back(reused ? reused
                                       : std::make_shared<upstream_client>(io.get_executor(), u));
    }
    return view;
}

std::optional<std::string_view> header(const http_request& req, std::string_view name) {
    auto it = req.find(name);
    if (it == req.end())
        return std::nullopt;
    return it->value();
}

std::string_view path_of(std::string_view target) {
    return target.substr(0, target.find('?'));
}

// The whole answer in one buffer (one write, no per-field buffer sequence).
std::string serialize_reply(const http_reply& reply, unsigned version, bool keep_alive,
                            bool head_only) {
    std::string wire;
    wire.reserve(reply.body.size() + 256);
    wire.append(version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ");
    wire.append(std::to_string(static_cast<unsigned>(reply.status))).append(" ");
    wire.append(http::obsolete_reason(reply.status)).append("\r\nServer: gate\r\n");
    if (!reply.content_type.empty())
        wire.append("Content-Type: ").append(reply.content_type).append("\r\n");
    for (const auto& [k, v] : reply.headers)
        wire.append(k).append(": ").append(v).append("\r\n");
    if (!keep_alive)
        wire.append("Connection: close\r\n");
    else if (version == 10)
        wire.append("Connection: keep-alive\r\n");
    wire.append("Content-Length: ").append(std::to_string(reply.body.size()));
    wire.append("\r\n\r\n");
    if (!head_only) // HEAD: the same header, no body, or the connection falls out of step
        wire.append(reply.body);
    return wire;
}

} // namespace

gateway::impl::impl(asio::io_context& io_, gateway_parts parts_)
    : io(io_), parts(std::move(parts_)), doc(*parts.snap->doc),
      guard(doc.server.allowed_hosts, doc.server.allowed_hosts_any),
      live(make_view(io_, parts.snap, nullptr)),
      health(std::make_shared<health_checker>(live->clients, !doc.auth.required)) {}

gateway::gateway(asio::io_context& io, gateway_parts parts)
    : impl_(std::make_unique<impl>(io, std::move(parts))) {
    impl_->on_request = &on_request;
}

gateway::~gateway() = default;

std::uint16_t gateway::listen(const std::string& host, std::uint16_t port) {
    auto& acc = impl_->acceptor.emplace(impl_->io);
    tcp::endpoint ep(asio::ip::make_address(host), port);
    acc.open(ep.protocol());
    acc.set_option(asio::socket_base::reuse_address(true));
    acc.bind(ep);
    acc.listen(asio::socket_base::max_listen_connections);
    asio::co_spawn(impl_->io, impl_->accept_loop(), asio::detached);
    asio::co_spawn(impl_->io, impl_->sweep_sessions(), asio::detached);
    impl_->warm_up(*impl_->live);
    return acc.local_endpoint().port();
}

std::optional<std::string> gateway::reload(std::shared_ptr<const config::document> next) {
    auto& i = *impl_;
    const auto& now = i.doc;
    if (!(next->server == now.server))
        return "the server section cannot change without a restart";
    if (!(next->auth == now.auth))
        return "the auth section cannot change without a restart";
    if (!(next->audit == now.audit))
        return "the audit section cannot change without a restart";
    if (!(next->tracing == now.tracing))
        return "the tracing section cannot change without a restart";
    auto snap = make_snapshot(std::move(next), i.live->snap->version + 1);
    auto view = make_view(i.io, snap, i.live.get());
    std::size_t kept = 0;
    for (const auto& c : view->clients)
        for (const auto& old : i.live->clients)
            kept += c == old;
    spdlog::info("reload applied: {} upstream{} ({} kept with live sessions, {} new or changed, "
                 "{} retired)",
                 view->clients.size(), view->clients.size() == 1 ? "" : "s", kept,
                 view->clients.size() - kept, i.live->clients.size() - kept);
    i.live = view;
    i.health = std::make_shared<health_checker>(view->clients, !i.doc.auth.required);
    i.warm_up(*view);
    caf::anon_send(i.parts.router, replace_snapshot{snap});
    for (auto method : {"notifications/tools/list_changed", "notifications/prompts/list_changed",
                        "notifications/resources/list_changed"})
        i.sessions.broadcast(json::serialize(json::object{{"jsonrpc", "2.0"}, {"method", method}}));
    return std::nullopt;
}

void gateway::drain(std::chrono::steady_clock::duration bound, std::function<void()> then) {
    stop();
    asio::co_spawn(
        impl_->io,
        [i = impl_.get(), bound, then = std::move(then)]() -> asio::awaitable<void> {
            // Requests already being answered finish (bounded); new connections are refused
            // and open GET streams end as their sessions close.
            auto deadline = clock::now() + bound;
            asio::steady_timer tick(i->io);
            while (*i->in_flight > 0 && clock::now() < deadline) {
                tick.expires_after(std::chrono::milliseconds(20));
                boost::system::error_code ec;
                co_await tick.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            }
            if (auto n = *i->in_flight; n > 0)
                spdlog::warn("shutdown: {} request{} cut after the drain bound", n,
                             n == 1 ? "" : "s");
            then();
        },
        asio::detached);
}

void gateway::stop() {
    impl_->stopping = true;
    asio::post(impl_->io, [i = impl_.get()] {
        if (i->acceptor)
            i->acceptor->close();
        i->sessions.close_all();
    });
}

asio::awaitable<void> gateway::impl::accept_loop() {
    for (;;) {
        boost::system::error_code ec;
        auto socket =
            co_await acceptor->async_accept(asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            if (ec == asio::error::operation_aborted || stopping)
                co_return;
            spdlog::warn("accept failed: {}", ec.message());
            continue;
        }
        socket.set_option(tcp::no_delay(true), ec); // best effort
        asio::co_spawn(acceptor->get_executor(), serve(std::move(socket)), asio::detached);
    }
}

void gateway::impl::warm_up(const federation_view& view) {
    // Each upstream's root session is opened now rather than by the first client request, so
    // an operator sees at start (and after a reload) which upstreams answer.
    for (const auto& client : view.clients)
        asio::co_spawn(
            io,
            [client]() -> asio::awaitable<void> {
                auto r = co_await client->initialize_result({});
                const auto& id = client->config().id;
                if (auto* f = std::get_if<upstream_failure>(&r)) {
                    spdlog::warn("upstream {} not reachable yet: {}", id, f->message);
                    co_return;
                }
                const auto& init = std::get<boost::json::object>(r);
                std::string name = "?", version = "?";
                if (auto* info = init.if_contains("serverInfo"); info && info->is_object()) {
                    if (auto* n = info->as_object().if_contains("name"); n && n->is_string())
                        name = n->as_string();
                    if (auto* v = info->as_object().if_contains("version"); v && v->is_string())
                        version = v->as_string();
                }
                spdlog::info("upstream {} ready: {} {}", id, name, version);
            },
            asio::detached);
}

asio::awaitable<void> gateway::impl::sweep_sessions() {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    while (!stopping) {
        timer.expires_after(session_sweep_interval);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (auto n = sessions.expire_idle(clock::now(), downstream_session_idle))
            spdlog::info("expired {} idle downstream session{}", n, n == 1 ? "" : "s");
    }
}

void gateway::impl::finish(request_record& rec) {
    rec.trace.record(stage::audit);
    double seconds = std::chrono::duration<double>(clock::now() - rec.start).count();
    stats.request(rec.method, rec.outcome, seconds, rec.upstream_calls);
    if (parts.audit) {
        audit_event e;
        e.time = std::chrono::system_clock::now();
        e.method = rec.method;
        e.name = rec.name;
        e.upstream = rec.upstream;
        e.outcome = rec.outcome;
        e.error = rec.error;
        e.latency_ms = seconds * 1000;
        e.upstream_calls = rec.upstream_calls;
        e.items_served = rec.items_served;
        caf::anon_send(parts.audit, std::move(e));
    }
    if (on_request && *on_request)
        (*on_request)(rec);
}

void gateway::impl::reject_http(std::string_view reason, std::string_view outcome,
                                std::string error, clock::time_point start) {
    stats.rejection(reason);
    if (parts.audit) {
        audit_event e;
        e.time = std::chrono::system_clock::now();
        e.method = "http";
        e.outcome = std::string(outcome);
        e.error = std::move(error);
        e.latency_ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
        caf::anon_send(parts.audit, std::move(e));
    }
}

asio::awaitable<void> gateway::impl::serve(tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buf;
    for (;;) {
        http::request_parser<http::string_body> parser;
        // The cap is applied once the header is in: Beast would otherwise fail the header read
        // on a large Content-Length and we could not answer 413.
        parser.body_limit(std::numeric_limits<std::uint64_t>::max());
        stream.expires_after(idle_connection_timeout);
        boost::system::error_code ec;
        co_await http::async_read_header(stream, buf, parser,
                                         asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            break;
        auto start = clock::now();
        auto& req = parser.get();
        // The guard owns a share of the counter: a frame destroyed with the io_context after the
        // gateway is gone must not write into it.
        struct done_guard {
            std::shared_ptr<std::size_t> n;
            ~done_guard() { --*n; }
        } counted{in_flight};
        ++*in_flight;
        http_reply reply;
        bool streamed = false;

        // Stage 1, before anything else: the Host/Origin allowlist, on every endpoint.
        auto verdict = guard.check(header(req, "Host"), header(req, "Origin"));
        auto path = path_of(req.target());
        if (verdict != host_verdict::allowed) {
            bool host = verdict == host_verdict::forbidden_host;
            reject_http(host ? "forbidden_host" : "forbidden_origin", "forbidden",
                        host ? "Host not allowed" : "Origin not allowed", start);
            reply =
                http_reply::json(http::status::forbidden,
                                 host ? R"({"error":"forbidden: Host is not on the allowlist"})"
                                      : R"({"error":"forbidden: Origin is not on the allowlist"})");
            reply.close = true;
        } else if (path == doc.server.mcp_path && req.method() == http::verb::post) {
            auto len = parser.content_length();
            if (len && *len > static_cast<std::uint64_t>(doc.server.max_body_bytes)) {
                ec = http::error::body_limit;
            } else {
                parser.body_limit(static_cast<std::uint64_t>(doc.server.max_body_bytes));
                stream.expires_after(std::chrono::seconds(30));
                // curl and others wait for this before sending a larger body.
                if (beast::iequals(req[http::field::expect], "100-continue")) {
                    static constexpr std::string_view go_on = "HTTP/1.1 100 Continue\r\n\r\n";
                    co_await asio::async_write(stream, asio::buffer(go_on),
                                               asio::redirect_error(asio::use_awaitable, ec));
                }
                if (!ec)
                    co_await http::async_read(stream, buf, parser,
                                              asio::redirect_error(asio::use_awaitable, ec));
            }
            if (ec == http::error::body_limit) {
                auto limit = std::to_string(doc.server.max_body_bytes);
                reject_http("body_too_large", "error", "request body over " + limit + " bytes",
                            start);
                reply = http_reply::json(http::status::payload_too_large,
                                         R"({"error":"request body exceeds the limit of )" + limit +
                                             R"( bytes"})");
                reply.close = true;
            } else if (ec) {
                break;
            } else {
                request_record rec;
                rec.view = live;
                rec.start = start;
                rec.trace.record(stage::host_origin);
                reply = co_await mcp_post(parser.get(), rec);
            }
        } else if (path == doc.server.mcp_path && req.method() == http::verb::get) {
            co_await mcp_get(stream, req);
            streamed = true;
        } else if (path == doc.server.mcp_path && req.method() == http::verb::delete_) {
            reply = mcp_delete(req);
        } else if (path == doc.server.mcp_path) {
            reply = http_reply::json(http::status::method_not_allowed,
                                     R"({"error":"method not allowed: use POST, GET or DELETE"})");
            reply.headers.emplace_back("Allow", "GET, POST, DELETE");
        } else if (path == "/health" && req.method() == http::verb::get) {
            auto checker = health; // a reload may replace it while this probe runs
            auto report = co_await checker->check();
            reply = http_reply::json(report.any_up ? http::status::ok
                                                   : http::status::service_unavailable,
                                     json::serialize(report.body));
        } else if (path == "/metrics" && req.method() == http::verb::get) {
            reply = http_reply::text(http::status::ok, stats.serialize());
            reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
        } else {
            reply = http_reply::json(http::status::not_found, R"({"error":"not found"})");
        }
        if (streamed)
            break;
        // Anything not read (GET/DELETE bodies are not expected) makes the connection unusable.
        if (!reply.close && !parser.is_done())
            reply.close = true;

        bool keep_alive = !reply.close && req.keep_alive();
        auto wire =
            serialize_reply(reply, req.version(), keep_alive, req.method() == http::verb::head);
        stream.expires_after(std::chrono::seconds(30));
        co_await asio::async_write(stream, asio::buffer(wire),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            break;
        if (!keep_alive) {
            if (reply.close)
                co_await drain(stream);
            break;
        }
    }
    boost::system::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

asio::awaitable<void> gateway::impl::drain(beast::tcp_stream& stream) {
    // The client may still be sending the body we refused. Closing with unread bytes makes the
    // kernel answer with a reset that can destroy our response before the client reads it, so
    // half-close first and discard what arrives, within bounds.
    boost::system::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream.expires_after(std::chrono::seconds(2));
    std::array<char, 16384> sink;
    std::size_t total = 0;
    const std::size_t cap = 4 * static_cast<std::size_t>(doc.server.max_body_bytes) + (1u << 20);
    while (!ec && total < cap)
        total += co_await stream.async_read_some(asio::buffer(sink),
                                                 asio::redirect_error(asio::use_awaitable, ec));
}

} // namespace gate::transport
