#include "shim/shim_server.hpp"

#include "protocol/json_rpc.hpp"
#include "protocol/random_id.hpp"
#include "shim/child_log.hpp"
#include "shim/child_process.hpp"
#include "shim/line_splitter.hpp"
#include "shim/message_routing.hpp"
#include "shim/probe.hpp"
#include "shim/shim_session.hpp"
#include "transport/http/event_stream.hpp"
#include "transport/http/sse.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace gate::shim {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using transport::http_reply;
using transport::http_request;
using clock = std::chrono::steady_clock;
using transport::close_event_stream;

namespace {

constexpr auto retry_after_seconds = "5";

http_reply rpc_error(http::status status, const json::value& id, int code, std::string_view text) {
    return http_reply::json(status, json::serialize(protocol::make_error(id, code, text)));
}

// The protocol version an initialize answer agreed to; nullopt when the server refused.
std::optional<std::string> negotiated_version(const std::string& answer) {
    boost::system::error_code ec;
    auto parsed = json::parse(answer, ec);
    auto* o = ec ? nullptr : parsed.if_object();
    auto* result = o ? o->if_contains("result") : nullptr;
    auto* pv = result && result->is_object() ? result->get_object().if_contains("protocolVersion")
                                             : nullptr;
    if (!pv || !pv->is_string())
        return std::nullopt;
    return std::string(pv->get_string());
}

std::string ended_answer(const shim_session& s, const json::value& id) {
    return json::serialize(protocol::make_error(
        id, protocol::error_code::internal_error,
        "the stdio server session ended before answering: " + s.ended.value_or("")));
}

// A POST's body as one JSON-RPC message, or the 400 that says why it is not one.
std::variant<protocol::message, http_reply> read_message(const http_request& req) {
    boost::system::error_code jec;
    auto value = json::parse(req.body(), jec);
    if (jec)
        return rpc_error(http::status::bad_request, nullptr, protocol::error_code::parse_error,
                         "parse error: " + jec.message());
    auto classified = protocol::classify(std::move(value));
    if (auto* bad = std::get_if<protocol::rpc_error>(&classified))
        return rpc_error(http::status::bad_request, bad->id, bad->code,
                         "invalid request: " + bad->message);
    return std::get<protocol::message>(std::move(classified));
}

} // namespace

shim_server::shim_server(asio::io_context& io, shim_settings settings)
    : io_(io), settings_(std::move(settings)),
      guard_({"localhost", "127.0.0.1", "::1"}, !settings_.loopback),
      stats_(settings_.max_sessions),
      ledger_(settings_.max_sessions,
              std::chrono::duration_cast<clock::duration>(settings_.idle_after)),
      child_starts_(settings_.max_child_starts,
                    std::chrono::duration_cast<clock::duration>(settings_.child_start_window)),
      health_memo_(settings_.health_reuse),
      server_(io, *this, settings_.max_body_bytes, "gate-stdio") {}

shim_server::~shim_server() = default;

std::uint16_t shim_server::listen(const std::string& host, std::uint16_t port) {
    auto bound = server_.listen(host, port);
    asio::co_spawn(io_, sweep(), asio::detached);
    return bound;
}

void shim_server::shutdown(std::function<void()> then) {
    server_.stop();
    asio::post(io_, [this, then = std::move(then)]() mutable {
        shutting_down_ = true;
        on_all_reaped_ = std::move(then);
        std::vector<std::shared_ptr<shim_session>> all;
        for (auto& [id, s] : sessions_)
            all.push_back(s);
        for (auto& s : all)
            end_session(*s, "the shim is shutting down");
        if (sessions_.empty() && on_all_reaped_)
            std::exchange(on_all_reaped_, nullptr)();
    });
}

asio::awaitable<void> shim_server::sweep() {
    asio::steady_timer timer(io_);
    while (!server_.stopping()) {
        timer.expires_after(settings_.sweep_every);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        sweep_idle(clock::now());
    }
}

void shim_server::sweep_idle(clock::time_point now) {
    // A child that flooded its log and then went quiet still gets its count reported.
    for (auto& [id, s] : sessions_)
        if (s->log)
            s->log->sweep(now);
    auto idle_s = std::chrono::duration_cast<std::chrono::seconds>(settings_.idle_after).count();
    for (const auto& id : ledger_.take_idle(now))
        if (auto it = sessions_.find(id); it != sessions_.end()) {
            auto keep = it->second;
            end_session(*keep, "idle for " + std::to_string(idle_s) + " s");
        }
}

asio::awaitable<std::optional<http_reply>> shim_server::respond(http_request& req,
                                                                beast::tcp_stream& stream,
                                                                const boost::asio::ip::address&,
                                                                time_point) {
    auto path = transport::path_of(req.target());
    if (path == "/mcp") {
        switch (req.method()) {
        case http::verb::post:
            co_return co_await post(req, stream);
        case http::verb::get:
            co_return co_await get(req, stream);
        case http::verb::delete_:
            co_return del(req);
        default: {
            auto reply = json_error(http::status::method_not_allowed,
                                    "method not allowed: use POST, GET or DELETE");
            reply.headers.emplace_back("Allow", "GET, POST, DELETE");
            co_return reply;
        }
        }
    }
    if (path == "/health" && req.method() == http::verb::get) {
        auto answer = co_await health();
        json::object body{{"status", answer.ok ? "ok" : "unavailable"},
                          {"sessions", ledger_.live_count()},
                          {"maxSessions", ledger_.max()},
                          {"children", sessions_.size()}};
        body[answer.ok ? "server" : "error"] = answer.body;
        co_return http_reply::json(answer.ok ? http::status::ok : http::status::service_unavailable,
                                   json::serialize(body));
    }
    if (path == "/metrics" && req.method() == http::verb::get) {
        auto reply = http_reply::text(http::status::ok, stats_.serialize());
        reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
        co_return reply;
    }
    co_return json_error(http::status::not_found, "not found");
}

asio::awaitable<shim_server::health_answer> shim_server::health() {
    for (const auto& [id, s] : sessions_)
        if (!s->ended && s->child && !s->child->exited())
            co_return health_answer{true, "a live session is running the server"};
    co_return co_await health_memo_.get([this]() -> asio::awaitable<health_answer> {
        auto r =
            co_await probe_server(io_.get_executor(), settings_.server, settings_.health_timeout);
        co_return health_answer{r.ok, r.detail};
    });
}

std::shared_ptr<shim_session> shim_server::start_session(std::string& error) {
    auto s = std::make_shared<shim_session>(settings_.max_queued_bytes, settings_.max_backlog);
    s->id = protocol::random_id();
    s->tag = s->id.substr(0, 8);
    if (!ledger_.admit(s->id, clock::now())) {
        error = "session_limit";
        return nullptr;
    }
    std::weak_ptr<shim_session> weak = s;
    child_process::callbacks cb;
    cb.on_stdout_line = [this, weak](std::string line) {
        if (auto s = weak.lock())
            on_child_line(s, std::move(line));
    };
    auto log = std::make_shared<child_log>(s->tag, settings_.log_limits, stats_, clock::now());
    s->log = log;
    cb.on_stderr_line = [log](std::string_view line, std::size_t length) {
        log->stderr_line(line, length, clock::now());
    };
    cb.on_exit = [this, weak, log, id = s->id, tag = s->tag](const child_exit& e, pid_t pid) {
        log->ended();
        if (auto s = weak.lock(); s && !s->ended) {
            spdlog::warn("session {}: the server {} unexpectedly; the session ends", tag,
                         e.description);
            end_session(*s, e.description);
        } else {
            spdlog::info("session {}: child {}", tag, e.description);
        }
        reaped(id, pid);
    };
    auto started = child_process::start(io_.get_executor(), settings_.server, std::move(cb),
                                        settings_.max_line_bytes);
    if (auto* err = std::get_if<std::string>(&started)) {
        ledger_.released(s->id);
        stats_.spawn_error();
        spdlog::error("session not started: {}", *err);
        error = *err;
        return nullptr;
    }
    s->child = std::get<std::shared_ptr<child_process>>(started);
    sessions_.emplace(s->id, s);
    stats_.spawned();
    stats_.sessions(ledger_.live_count());
    spdlog::info("session {} started: pid {}", s->tag, s->child->pid());
    return s;
}

void shim_server::on_child_line(const std::shared_ptr<shim_session>& s, std::string line) {
    boost::system::error_code ec;
    auto value = json::parse(line, ec);
    if (ec) {
        s->log->stray_stdout_line(line, false, clock::now());
        return;
    }
    auto classified = protocol::classify(std::move(value));
    auto* msg = std::get_if<protocol::message>(&classified);
    if (!msg) {
        s->log->stray_stdout_line(line, true, clock::now());
        return;
    }
    if (s->flights)
        return on_stateless_line(*s, std::move(*msg), line);
    auto r = s->inflight.route_of(*msg);
    switch (r.where) {
    case route::to::request: {
        auto it = s->waiting.find(r.request_key);
        if (it == s->waiting.end())
            break;
        bool answer = msg->kind == protocol::message_kind::response;
        if (answer)
            s->inflight.remove(r.request_key); // later server messages go elsewhere
        s->deliver(it->second.get(), std::move(line), answer, stats_);
        break;
    }
    case route::to::session_stream:
        s->deliver(nullptr, std::move(line), false, stats_);
        break;
    case route::to::nowhere:
        spdlog::debug("session {}: an answer to no request in flight, dropped: {}", s->tag,
                      loggable_line(line, line.size(), settings_.log_limits.max_line_bytes));
        break;
    }
}

void shim_server::end_session(shim_session& s, std::string reason) {
    if (s.ended)
        return;
    spdlog::info("session {} ends: {}", s.tag, reason);
    s.ended = std::move(reason);
    ledger_.closing(s.id);
    stats_.sessions(ledger_.live_count());
    s.wake_all();
    if (s.child)
        s.child->terminate(settings_.kill_grace);
}

void shim_server::reaped(const std::string& id, pid_t pid) {
    sessions_.erase(id);
    if (on_reaped)
        on_reaped(pid);
    ledger_.released(id);
    stats_.sessions(ledger_.live_count());
    if (shutting_down_ && sessions_.empty() && on_all_reaped_)
        std::exchange(on_all_reaped_, nullptr)();
}

std::variant<std::shared_ptr<shim_session>, http_reply>
shim_server::session_for(const http_request& req, const protocol::message& msg, bool& opening) {
    std::shared_ptr<shim_session> s;
    auto session_id = transport::header_value(req, "Mcp-Session-Id");
    if (session_id.empty()) {
        if (msg.kind != protocol::message_kind::request || msg.method != "initialize")
            return json_error(http::status::bad_request,
                              "Mcp-Session-Id header is required (send initialize first)");
        if (shutting_down_)
            return json_error(http::status::service_unavailable, "the shim is shutting down");
        std::string error;
        s = start_session(error);
        if (!s && error == "session_limit") {
            stats_.rejected("session_limit");
            auto reply =
                json_error(http::status::service_unavailable,
                           "at the session ceiling of " + std::to_string(settings_.max_sessions) +
                               " (--max-sessions); try again later");
            reply.headers.emplace_back("Retry-After", retry_after_seconds);
            return reply;
        }
        if (!s)
            return rpc_error(http::status::bad_gateway, msg.id,
                             protocol::error_code::internal_error, error);
        opening = true;
    } else {
        auto it = sessions_.find(session_id);
        if (it == sessions_.end() || it->second->ended || it->second->flights)
            return json_error(http::status::not_found, "unknown or ended session");
        s = it->second;
        auto version = transport::header_value(req, "MCP-Protocol-Version");
        if (!version.empty() && !s->protocol_version.empty() && version != s->protocol_version)
            return json_error(http::status::bad_request,
                              "MCP-Protocol-Version " + version +
                                  " is not the session's negotiated version " +
                                  s->protocol_version);
    }
    return s;
}

void shim_server::end_flight(shim_session& s, const std::shared_ptr<client_stream>& q) {
    q->socket = nullptr;
    // A cut request left flight at once: its id may belong to a newer request now.
    if (auto it = s.waiting.find(q->request_key); it != s.waiting.end() && it->second == q)
        s.waiting.erase(it);
    if (!q->cut)
        s.inflight.remove(q->request_key);
    s.close_stream(*q);
    ledger_.end_use(s.id, clock::now());
}

http_reply shim_server::plain_answer(shim_session& s, client_stream& queue, bool opening,
                                     const std::optional<std::string>& session_header) {
    auto answer = std::move(s.outbox.take(queue.id).front());
    s.outbox.written(queue.id);
    if (opening) {
        auto version = negotiated_version(answer);
        if (!version) {
            end_session(s, "the server did not accept initialize");
            return http_reply::json(http::status::ok, std::move(answer));
        }
        s.protocol_version = std::move(*version);
    }
    auto reply = http_reply::json(http::status::ok, std::move(answer));
    if (session_header)
        reply.headers.emplace_back("Mcp-Session-Id", *session_header);
    return reply;
}

asio::awaitable<std::optional<http_reply>> shim_server::post(http_request& req,
                                                             beast::tcp_stream& stream) {
    auto read = read_message(req);
    if (auto* refusal = std::get_if<http_reply>(&read))
        co_return std::move(*refusal);
    auto& msg = std::get<protocol::message>(read);
    bool is_request = msg.kind == protocol::message_kind::request;
    if (transport::header_value(req, "Mcp-Session-Id").empty())
        switch (stateless_post_kind(msg, transport::header_value(req, "MCP-Protocol-Version"))) {
        case stateless_kind::request:
            co_return co_await stateless_post(req, stream, std::move(msg));
        case stateless_kind::notification:
            co_return http_reply::empty(http::status::accepted);
        case stateless_kind::none:
            break;
        }

    bool opening = false;
    auto resolved = session_for(req, msg, opening);
    if (auto* refusal = std::get_if<http_reply>(&resolved))
        co_return std::move(*refusal);
    auto s = std::get<std::shared_ptr<shim_session>>(std::move(resolved));

    if (!is_request) {
        // Notifications and the client's answers to server requests: to the child, 202.
        s->child->send(to_stdio_line(req.body()));
        ledger_.begin_use(s->id, clock::now());
        ledger_.end_use(s->id, clock::now());
        co_return http_reply::empty(http::status::accepted);
    }

    bool streams = transport::accepts(transport::header_value(req, "Accept"), "text/event-stream");
    if (!s->inflight.add(msg, streams))
        co_return rpc_error(http::status::bad_request, msg.id,
                            protocol::error_code::invalid_request,
                            "invalid request: id " + json::serialize(msg.id) +
                                " is already in use by a request in flight");
    auto key = inflight_requests::key_of(msg.id);
    auto queue = s->open_stream(io_.get_executor(), key);
    s->waiting[key] = queue;
    ledger_.begin_use(s->id, clock::now());
    struct done {
        shim_server* self;
        std::shared_ptr<shim_session> s;
        std::shared_ptr<client_stream> q;
        ~done() { self->end_flight(*s, q); }
    } cleanup{this, s, queue};
    queue->socket = &stream;
    s->child->send(to_stdio_line(req.body()));

    std::optional<std::string> session_header;
    if (opening)
        session_header = s->id;

    co_await s->next(*queue);
    if (queue->cut)
        co_return std::nullopt; // its connection is closed: the client learns it was cut
    if (s->outbox.queued_messages(queue->id) == 1 && queue->answered)
        co_return plain_answer(*s, *queue, opening, session_header);
    if (!s->outbox.has_queued(queue->id)) {
        if (opening)
            end_session(*s, "the server ended before answering initialize");
        co_return http_reply::json(http::status::ok, ended_answer(*s, msg.id));
    }
    co_return co_await stream_answer(*s, *queue, stream, req.version(), msg.id, session_header);
}

// Server messages came before the answer: they and the answer go as an event stream.
asio::awaitable<std::optional<http_reply>>
shim_server::stream_answer(shim_session& s, client_stream& queue, beast::tcp_stream& stream,
                           unsigned version, const json::value& id,
                           std::optional<std::string> session_header) {
    bool opening = session_header.has_value();
    if (auto ec = co_await transport::open_event_stream(stream, version, "gate-stdio",
                                                        std::move(session_header)))
        co_return std::nullopt;
    std::uint64_t event_id = 0;
    for (;;) {
        if (queue.cut)
            co_return std::nullopt;
        auto messages = s.outbox.take(queue.id);
        // Once answered nothing else comes to this stream, so the answer is the last taken.
        bool last = queue.answered && !messages.empty();
        if (last && opening) {
            if (auto agreed = negotiated_version(messages.back()))
                s.protocol_version = std::move(*agreed);
            else
                end_session(s, "the server did not accept initialize");
        }
        std::string frame;
        for (auto& m : messages)
            frame += transport::format_sse(m, std::to_string(++event_id));
        messages = {};
        if (!last && s.ended) {
            frame += transport::format_sse(ended_answer(s, id), std::to_string(++event_id));
            last = true;
        }
        if (!frame.empty() && !co_await s.write(queue, frame, settings_.write_deadline, stats_))
            co_return std::nullopt;
        if (last)
            break;
        co_await s.next(queue);
    }
    co_await close_event_stream(stream);
    co_return std::nullopt;
}

asio::awaitable<std::optional<http_reply>> shim_server::get(http_request& req,
                                                            beast::tcp_stream& stream) {
    std::optional<http_reply> refusal;
    auto accept = transport::header_value(req, "Accept");
    auto session_id = transport::header_value(req, "Mcp-Session-Id");
    std::shared_ptr<shim_session> s;
    if (accept.find("text/event-stream") == std::string::npos) {
        refusal = json_error(http::status::not_acceptable, "GET needs Accept: text/event-stream");
    } else if (session_id.empty()) {
        refusal = json_error(http::status::bad_request, "Mcp-Session-Id header is required");
    } else if (auto it = sessions_.find(session_id);
               it == sessions_.end() || it->second->ended || it->second->flights) {
        refusal = json_error(http::status::not_found, "unknown or ended session");
    } else if (it->second->stream) {
        refusal = json_error(http::status::conflict, "this session already has an open GET stream");
    } else {
        s = it->second;
    }
    if (refusal)
        co_return refusal;
    auto queue = s->open_stream(io_.get_executor());
    s->stream = queue;
    s->outbox.adopt_backlog(queue->id);
    s->backlog_warned = false;
    ledger_.begin_use(s->id, clock::now());
    struct done {
        shim_server* self;
        std::shared_ptr<shim_session> s;
        std::shared_ptr<client_stream> q;
        ~done() {
            q->socket = nullptr;
            if (s->stream == q)
                s->stream.reset();
            s->close_stream(*q);
            self->ledger_.end_use(s->id, clock::now());
        }
    } cleanup{this, s, queue};

    queue->socket = &stream;
    stream.expires_never();
    if (co_await transport::open_event_stream(stream, req.version(), "gate-stdio", std::nullopt))
        co_return std::nullopt;
    std::uint64_t event_id = 0;
    while (!s->ended && !queue->cut) {
        if (!s->outbox.has_queued(queue->id)) {
            co_await queue->sleep(std::chrono::seconds(15));
            if (s->ended || queue->cut)
                break;
        }
        std::string frame;
        for (auto& m : s->outbox.take(queue->id))
            frame += transport::format_sse(m, std::to_string(++event_id));
        if (frame.empty())
            frame = ": keep-alive\n\n"; // keeps intermediaries from timing the stream out
        if (!co_await s->write(*queue, frame, settings_.write_deadline, stats_))
            co_return std::nullopt;
    }
    if (queue->cut)
        co_return std::nullopt; // no last chunk: the client sees the stream broken off
    co_await close_event_stream(stream);
    co_return std::nullopt;
}

http_reply shim_server::del(const http_request& req) {
    auto session_id = transport::header_value(req, "Mcp-Session-Id");
    if (session_id.empty())
        return json_error(http::status::bad_request, "Mcp-Session-Id header is required");
    auto it = sessions_.find(session_id);
    if (it == sessions_.end() || it->second->ended || it->second->flights)
        return json_error(http::status::not_found, "unknown or ended session");
    auto keep = it->second;
    end_session(*keep, "ended by the client (DELETE)");
    return http_reply::empty(http::status::ok);
}

} // namespace gate::shim
