// One HTTP exchange with an upstream endpoint: a pooled or fresh connection, the request's
// bytes, its JSON or SSE answer within the request's deadline, the rest of an event stream
// drained in the background (a session's long-lived stream and DELETE: session_exchanges.cpp).
#include "gateway/upstream/upstream_exchange.hpp"

#include "gateway/upstream/exchange_parts.hpp"
#include "gateway/upstream/upstream_client_parts.hpp"
#include "gateway/upstream/upstream_credentials.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "process/version.hpp"
#include "protocol/json_check.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/list_kind.hpp"
#include "protocol/modern_request.hpp"
#include "transport/http/buffered_parse.hpp"
#include "transport/http/header_writer.hpp"
#include "transport/http/write_now.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>
#include <spdlog/spdlog.h>
#include <type_traits>

namespace gate::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using clock = std::chrono::steady_clock;
using namespace upstream::parts;

namespace {
// How long the end of an event stream is awaited, in the background, after its answer.
constexpr auto stream_end_wait = std::chrono::seconds(2);
// The bridge of a message from no session (a health probe's).
const std::string no_bridge;
} // namespace

upstream_exchange::upstream_exchange(upstream_state& state, upstream_credentials& credentials,
                                     upstream_guards& guards, upstream_observer& heard)
    : state_(state), watch_(transport::deadline_watch::of(state.ex)), credentials_(credentials),
      guards_(guards), heard_(heard) {
    for (const auto& url : state_.cfg.urls) {
        auto ep = std::make_unique<upstream_endpoint>();
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

outgoing_message outgoing_message::of(const json::object& msg, std::string_view source) {
    outgoing_message out;
    out.body = source.empty() ? json::serialize(msg) : protocol::serialize_preserving(msg, source);
    if (auto* m = msg.if_contains("method"); m && m->is_string()) {
        out.method = m->get_string();
        auto* p = msg.if_contains("params");
        out.name = protocol::named_value(out.method, p ? p->if_object() : nullptr);
    }
    if (auto* id = msg.if_contains("id"); id && msg.contains("method")) {
        out.request = true;
        out.id = *id;
    }
    return out;
}

std::variant<std::string, upstream_failure>
upstream_exchange::post_wire(const upstream_endpoint& ep, const outgoing_message& msg,
                             const session_state& session, const call_context& ctx,
                             std::string_view credential) const {
    // One contiguous buffer per request: Beast's field-by-field serializer showed up in
    // profiles of the proxy path (docs/benchmarks.md).
    const auto& body = msg.body;
    std::string wire;
    wire.reserve(body.size() + 512);
    wire.append("POST ").append(ep.target).append(" HTTP/1.1\r\n");
    transport::header_writer head(wire);
    head.field("Host", ep.authority);
    wire.append("Content-Type: application/json\r\nAccept: application/json, "
                "text/event-stream\r\nUser-Agent: gate/");
    wire.append(process::gate_version).append("\r\n");
    if (!session.id.empty())
        head.field("Mcp-Session-Id", session.id);
    if (!session.protocol_version.empty())
        head.field("MCP-Protocol-Version", session.protocol_version);
    if (session.protocol_version == protocol::modern_protocol_version && !msg.method.empty()) {
        // 2026-07-28: the method, and the name a call is about, mirrored in headers.
        head.field("Mcp-Method", msg.method);
        if (!msg.name.empty())
            head.field("Mcp-Name", protocol::encode_header_value(msg.name));
        for (const auto& [name, value] : msg.fields)
            head.field_named(name, value);
    }
    if (!ctx.traceparent.empty())
        head.field("traceparent", ctx.traceparent);
    if (!credential.empty())
        head.line(credential);
    if (!head.ok())
        return refused_head(head);
    wire.append("Content-Length: ").append(std::to_string(body.size()));
    wire.append("\r\n\r\n").append(body);
    return wire;
}

std::variant<std::string, upstream_failure>
upstream_exchange::stream_wire(const upstream_endpoint& ep, const session_state& session,
                               std::string_view credential, std::string_view last_event_id) const {
    std::string wire = "GET " + ep.target + " HTTP/1.1\r\n";
    transport::header_writer head(wire);
    head.field("Host", ep.authority);
    head.field("Accept", "text/event-stream");
    head.field("User-Agent", "gate/" + std::string(process::gate_version));
    if (!session.id.empty())
        head.field("Mcp-Session-Id", session.id);
    if (!session.protocol_version.empty())
        head.field("MCP-Protocol-Version", session.protocol_version);
    if (!last_event_id.empty())
        head.field("Last-Event-ID", last_event_id);
    if (!credential.empty())
        head.line(credential);
    if (!head.ok())
        return refused_head(head);
    wire += "\r\n";
    return wire;
}

asio::awaitable<std::variant<http_answer, upstream_failure>>
upstream_exchange::exchange(upstream_endpoint& ep, const outgoing_message& msg,
                            const session_state& session, const call_context& ctx,
                            clock::time_point deadline, const session_origin* origin,
                            call_cancel* cancel) {
    const auto* caller = origin ? origin->caller.get() : nullptr;
    auto cred = credentials_.line_now(caller);
    if (!cred)
        cred = co_await credentials_.line(caller);
    if (auto* f = std::get_if<upstream_failure>(&*cred))
        co_return std::move(*f);
    auto written = post_wire(ep, msg, session, ctx, std::get<std::string>(*cred));
    if (auto* f = std::get_if<upstream_failure>(&written))
        co_return std::move(*f);
    auto& wire = std::get<std::string>(written);

    // Only a request waits for an answer; a notification or a response gets 202.
    const json::value* want_id = msg.request ? &msg.id : nullptr;
    for (int attempt = 0;; ++attempt) {
        auto pooled = attempt == 0 ? ep.idle.take(clock::now()) : std::nullopt;
        bool reused = pooled.has_value();
        transport::upstream_connection conn;
        if (reused) {
            conn = std::move(*pooled);
        } else {
            auto c = co_await connect(ep);
            if (auto* f = std::get_if<upstream_failure>(&c))
                co_return *f;
            conn = std::move(std::get<transport::upstream_connection>(c));
        }
        auto remaining = deadline - clock::now();
        if (remaining <= clock::duration::zero())
            co_return fail(upstream_failure::kind::timeout, "request timeout");
        http_answer answer;
        bool header_read = false, reusable = false;
        boost::system::error_code ec;
        // On the heap: an unfinished event stream hands it to the drain.
        auto reader =
            std::make_shared<answer_reader>(answer_limit_of(ctx), state_.answer_bytes_read);
        if (co_await guarded_round_trip(conn, {wire, want_id, answer, header_read, reusable, ec,
                                               ctx, origin, *reader, deadline, cancel}))
            co_return cancelled(*cancel);
        if (answer.stream_unfinished && !state_.closed)
            asio::co_spawn(state_.ex, drain(ep, std::move(conn), std::move(reader)),
                           asio::detached);
        if (ec) {
            // A pooled connection the upstream closed while idle: its idle siblings are likely
            // closed too. Retry once on a fresh connection; not an answer refused by its length,
            // which the upstream did send (the request would be sent twice).
            if (!header_read && reused && ec != beast::error::timeout &&
                ec != http::error::body_limit) {
                ep.idle.clear();
                continue;
            }
            if (auto f = read_failure(ep, ec, header_read, answer, *reader))
                co_return std::move(*f);
        }
        if (reusable && !ep.idle.full())
            ep.idle.give(std::move(conn), clock::now());
        if (auto f = refused_credential(answer, origin, std::get<std::string>(*cred)))
            co_return std::move(*f);
        // SSE polling (2025-11-25): the upstream closed the answer's stream after an event id,
        // to be resumed; 2026-07-28 streams carry no ids.
        if (want_id && !answer.message && !answer.resume_from.empty() &&
            session.protocol_version != protocol::modern_protocol_version)
            co_return co_await resume_answer(ep, session, ctx, deadline, origin, cancel, want_id,
                                             std::move(answer), std::get<std::string>(*cred));
        co_return answer;
    }
}

// Not a coroutine: the round trip's own frame is the only one it adds to the call's chain.
asio::awaitable<bool> upstream_exchange::guarded_round_trip(transport::upstream_connection& conn,
                                                            const round& r) {
    auto& socket = conn.lowest().socket();
    if (conn.tls)
        return round_trip(*conn.tls, socket, r);
    // The socket itself: the deadline is the watch's, not the stream's expiry, and Beast's
    // stream would wrap every read in its timer bookkeeping.
    return round_trip(conn.plain->socket(), socket, r);
}

std::optional<upstream_failure> upstream_exchange::read_failure(const upstream_endpoint& ep,
                                                                boost::system::error_code ec,
                                                                bool header_read,
                                                                const http_answer& answer,
                                                                const answer_reader& reader) const {
    if (header_read && answer.message)
        return std::nullopt; // the answer came whole before the connection failed
    if (ec == http::error::body_limit) {
        bool together = reader.over_upstream; // gate's capacity, not the upstream's doing
        auto f =
            fail(upstream_failure::kind::protocol,
                 together ? "the answers being read from upstream " + state_.cfg.id +
                                " hold over " + std::to_string(max_upstream_answer_bytes) +
                                " bytes together, gate's bound of one upstream; this "
                                "answer was dropped unread"
                          : "the answer of " + ep.url + " is over " + std::to_string(reader.limit) +
                                " bytes (as JSON, or in one event of its stream), gate's "
                                "bound; it was dropped unread");
        f.over_bound = !together;
        f.capacity = together; // its breaker learns nothing from it
        f.upstream_at_fault = !together;
        spdlog::warn("upstream {}: {}", state_.cfg.id, f.message);
        return f;
    }
    if (ec == beast::error::timeout)
        return fail(upstream_failure::kind::timeout,
                    "upstream did not answer within " +
                        std::to_string(state_.cfg.timeouts.request_ms) + " ms");
    if (!header_read)
        return fail(upstream_failure::kind::connect_error,
                    "connection to " + ep.url + " failed: " + ec.message());
    return fail(upstream_failure::kind::protocol,
                "reading the answer of " + ep.url + " failed: " + ec.message());
}

std::optional<upstream_failure> upstream_exchange::refused_credential(const http_answer& answer,
                                                                      const session_origin* origin,
                                                                      std::string_view line) const {
    if (!state_.per_caller || (answer.status != 401 && answer.status != 403))
        return std::nullopt;
    // The upstream refused the caller's own credential (or gate's, which has none): the
    // caller's business, not a sign of the upstream's health.
    auto f =
        fail(upstream_failure::kind::http_status,
             origin && origin->caller
                 ? "it refused the caller's credential (HTTP " + std::to_string(answer.status) + ")"
                 : "it needs a caller's credential (HTTP " + std::to_string(answer.status) + ")",
             answer.status);
    f.upstream_at_fault = false;
    f.challenge = answer.challenge;
    if (credentials_.user_account() && origin && origin->caller) {
        // The user's token was refused (revoked, expired early) or lacks a scope the upstream
        // asks for (RFC 6750 insufficient_scope): a login gets another.
        if (answer.status == 401)
            credentials_.token_refused(*origin->caller, line);
        f.needs_login = answer.status == 401 ||
                        answer.challenge.find("insufficient_scope") != std::string::npos;
    }
    return f;
}

void upstream_exchange::endpoint_failed(upstream_endpoint& ep, const std::string& why) {
    guards_.endpoint_failed(ep.index, why);
}

asio::awaitable<std::variant<transport::upstream_connection, upstream_failure>>
upstream_exchange::connect(upstream_endpoint& ep) {
    if (ep.resolved.empty()) {
        auto found = co_await transport::resolve_host(state_.ex, ep.host, ep.port);
        if (auto* why = std::get_if<std::string>(&found)) {
            endpoint_failed(ep, "cannot resolve " + ep.host);
            auto f = fail(upstream_failure::kind::connect_error,
                          "cannot resolve " + ep.host + ": " + *why);
            f.unsent = true;
            co_return f;
        }
        ep.resolved = std::move(std::get<0>(found));
    }
    if (ep.tls && !tls_)
        tls_ = transport::make_client_tls_context();
    auto c = co_await transport::open_upstream_connection(
        state_.ex, ep.resolved, ep.host, ep.tls ? tls_.get() : nullptr,
        std::chrono::milliseconds(state_.cfg.timeouts.connect_ms));
    if (auto* err = std::get_if<std::string>(&c)) {
        // Resolution may be stale (a restarted upstream on a new address): resolve again next time.
        ep.resolved.clear();
        endpoint_failed(ep, *err);
        auto f = fail(upstream_failure::kind::connect_error, ep.url + ": " + *err);
        f.unsent = true;
        co_return f;
    }
    co_return std::move(std::get<transport::upstream_connection>(c));
}

namespace {
// What an answer's header says: its status, session and challenges; its content type.
template <class Head> std::string_view take_head(const Head& head, http_answer& answer) {
    answer.status = static_cast<int>(head.result_int());
    if (auto it = head.find("Mcp-Session-Id"); it != head.end())
        answer.session_id = std::string(it->value());
    if (answer.status == 401 || answer.status == 403) { // every challenge, as one list
        auto [from, to] = head.equal_range(http::field::www_authenticate);
        for (auto it = from; it != to; ++it)
            answer.challenge.append(answer.challenge.empty() ? "" : ", ").append(it->value());
    }
    std::string_view ctype;
    if (auto it = head.find(http::field::content_type); it != head.end())
        ctype = it->value();
    return ctype;
}
} // namespace

// One request/answer on an open connection (plain or TLS) within the request's deadline, kept
// by the io thread's watch (no timer of its own): passed, it closes the connection and the
// call fails as timed out. The client's cancellation closes it too (at a 2026-07-28 upstream
// that is the cancellation; an earlier one was told by the request): true. `reusable` tells
// whether the connection may go back to the pool.
template <class Stream>
asio::awaitable<bool> upstream_exchange::round_trip(Stream& stream, asio::ip::tcp::socket& socket,
                                                    round r) {
    bool expired = false, cancel_closed = false;
    struct timed_out { // the deadline's close, whichever way the round trip ends
        const bool& expired;
        round& r;
        ~timed_out() {
            if (expired) {
                r.ec = beast::error::timeout;
                r.reusable = false;
            }
        }
    } mark_timeout{expired, r};
    auto deadline_kept = watch_.arm(r.deadline, [&expired, &socket] {
        expired = true;
        boost::system::error_code ignored;
        socket.close(ignored);
    });
    cancel_watch cancel_kept(r.cancel, [&cancel_closed, &socket] {
        cancel_closed = true;
        boost::system::error_code ignored;
        socket.close(ignored);
    });
    if (cancel_closed)
        co_return true;
    // On a plain connection what the socket takes at once goes without a wait (nearly always
    // all of it); TLS writes through the stream.
    auto& ec = r.ec;
    std::size_t sent = 0;
    if constexpr (std::is_same_v<Stream, asio::ip::tcp::socket>)
        sent = transport::write_now(stream, r.wire, ec);
    if (!ec && sent < r.wire.size())
        co_await asio::async_write(stream, asio::buffer(r.wire.data() + sent, r.wire.size() - sent),
                                   asio::redirect_error(asio::use_awaitable, ec));
    if (ec)
        co_return cancel_closed;
    auto& buf = r.reader.buf;
    auto& parser = r.reader.parser;
    // What this answer held is the upstream's again once its read is over, however it ends.
    struct released {
        answer_reader& r;
        ~released() { r.release(); }
    } release_at_end{r.reader};
    // transport::read_header's loop, here: the wait for the answer keeps no frame of its own.
    while (!transport::header_step(parser, buf, ec)) {
        auto n = co_await stream.async_read_some(buf.prepare(transport::header_read_size),
                                                 asio::redirect_error(asio::use_awaitable, ec));
        buf.commit(n);
        if (ec) {
            transport::header_read_failed(parser, buf, ec);
            co_return cancel_closed;
        }
    }
    if (ec)
        co_return cancel_closed;
    r.header_read = true;
    auto ctype = take_head(parser.get(), r.answer);
    if (ctype.starts_with("text/event-stream") && r.answer.status == 200)
        co_await read_event_answer(stream, r);
    else
        co_await read_json_answer(stream, r.reader, ctype, r.answer, r.reusable, ec);
    co_return cancel_closed;
}

// An answer that is an event stream: read until the response to the request is among its
// events, the upstream's own messages passed to the observer meanwhile.
template <class Stream>
asio::awaitable<void> upstream_exchange::read_event_answer(Stream& stream, round& r) {
    auto& buf = r.reader.buf;
    auto& parser = r.reader.parser;
    auto& ec = r.ec;
    auto& answer = r.answer;
    transport::sse_parser sse(r.reader.limit);
    while (!answer.message && !parser.is_done()) {
        auto events = co_await next_events(stream, buf, parser, sse, ec);
        if (ec)
            break;
        take_events(events, r.want_id, answer, r.ctx, r.origin);
        if (sse.over_bound() && !answer.message) {
            ec = http::error::body_limit; // an event never ended within the bound
            break;
        }
        if (!answer.message && !r.reader.hold(sse.held(), ec))
            break;
    }
    r.reusable = parser.is_done() && parser.keep_alive();
    // The answer came before the stream's end (a separate write of the server's): the
    // end is read in the background rather than waited for or the connection dropped.
    answer.stream_unfinished = answer.message && !ec && !parser.is_done();
    if (!answer.message && !ec) {
        answer.resume_from = sse.last_event_id();
        answer.retry = sse.retry();
    }
}

// An answer whose length is known holds it from its header on; another, what it read so far.
template <class Stream>
asio::awaitable<void> upstream_exchange::read_json_answer(Stream& stream, answer_reader& reader,
                                                          std::string_view ctype,
                                                          http_answer& answer, bool& reusable,
                                                          boost::system::error_code& ec) {
    auto& parser = reader.parser;
    auto declared = parser.content_length();
    if (declared && !reader.hold(static_cast<std::size_t>(*declared), ec))
        co_return;
    parser.eager(true); // each read parses all it buffered, as http::async_read has it
    transport::parse_buffered(parser, reader.buf, ec);
    while (!ec && !parser.is_done()) {
        co_await http::async_read_some(stream, reader.buf, parser,
                                       asio::redirect_error(asio::use_awaitable, ec));
        if (!ec && !declared && !reader.hold(parser.get().body().size(), ec))
            break;
    }
    reusable = !ec && parser.keep_alive();
    // Checked to be a JSON object, not parsed: most answers are passed on as text.
    if (auto& body = parser.get().body(); !ec && ctype.starts_with("application/json")) {
        protocol::object_members members;
        if (protocol::is_json(body, &members) && body[body.find_first_not_of(" \t\r\n")] == '{')
            answer.message = upstream_message::of_text(std::move(body), std::move(members));
    }
}

bool upstream_exchange::take_events(std::vector<transport::sse_event>& events,
                                    const json::value* want_id, http_answer& answer,
                                    const call_context& ctx, const session_origin* origin) {
    for (auto& ev : events) {
        boost::system::error_code jec;
        auto v = json::parse(ev.data, jec);
        auto* obj = v.if_object();
        if (jec || !obj)
            continue;
        auto* id = obj->if_contains("id");
        if (auto* method = obj->if_contains("method")) {
            // The upstream's own request or notification, sent while this call runs.
            const auto& bridge = origin ? origin->bridge : no_bridge;
            bool news = method->is_string() && protocol::is_list_changed(method->get_string());
            upstream_message m(std::move(*obj), std::move(ev.data));
            // A list change told on a call's stream (as SDK servers tell a change the call
            // made) is the upstream's news, as on any of its streams: the gateway hears it
            // too (its lists of the upstream dropped), and the call's client on its call.
            if (ctx.observer && news)
                heard_.message(bridge, m);
            if (ctx.observer)
                ctx.observer->message(bridge, std::move(m));
            else if (origin)
                heard_.message(origin->bridge, std::move(m));
            continue;
        }
        if (id && (!want_id || *id == *want_id)) {
            answer.message = upstream_message(std::move(*obj), std::move(ev.data));
            return true;
        }
    }
    return false;
}

asio::awaitable<void> upstream_exchange::drain(upstream_endpoint& ep,
                                               transport::upstream_connection conn,
                                               std::shared_ptr<answer_reader> reader) {
    auto self = state_.hold(); // `ep` lives as long as the client
    boost::system::error_code ec;
    auto rest = [&](auto& stream) -> asio::awaitable<void> {
        while (!ec && !reader->parser.is_done()) {
            co_await http::async_read_some(stream, reader->buf, reader->parser,
                                           asio::redirect_error(asio::use_awaitable, ec));
            reader->parser.get().body().clear(); // nothing after the answer is of use
        }
    };
    // A server that keeps the stream open after its answer is not waited for long.
    conn.lowest().expires_after(stream_end_wait);
    if (conn.tls)
        co_await rest(*conn.tls);
    else
        co_await rest(*conn.plain);
    if (ec || !reader->parser.keep_alive() || state_.closed || ep.idle.full())
        co_return;
    conn.lowest().expires_never();
    ep.idle.give(std::move(conn), clock::now());
}

} // namespace gate::gateway
