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

namespace {
constexpr std::size_t max_answer_bytes = 64 * 1024 * 1024;
// Input rounds one call may take with a 2026-07-28 upstream before gate gives up.
constexpr int max_input_rounds = 16;
// How long the end of an event stream is awaited, in the background, after its answer.
constexpr auto stream_end_wait = std::chrono::seconds(2);
// How long a handshake waits for the new session's GET stream to open.
constexpr auto stream_open_wait = std::chrono::seconds(2);

upstream_failure fail(upstream_failure::kind k, std::string msg, int status = 0) {
    return upstream_failure{k, std::move(msg), status, std::nullopt};
}

// A request whose head would carry a control character is never sent: nothing reached the
// upstream, which is not at fault for what gate refused to write.
upstream_failure refused_head(const header_writer& head) {
    auto f = fail(upstream_failure::kind::protocol,
                  "gate refused to send the header " + head.refused() +
                      " upstream: its value holds a control character");
    f.upstream_at_fault = false;
    return f;
}
} // namespace

namespace {
// Counts a request on a session while it runs (its handshake included), so the bridge
// keeper's retirement, decided on a picture up to one batch old, skips a session in use.
template <class Session> class session_use {
public:
    explicit session_use(Session& s) : s_(s) { s_.life.enter(); }
    ~session_use() { s_.life.leave(); }
    session_use(const session_use&) = delete;
    session_use& operator=(const session_use&) = delete;

private:
    Session& s_;
};

// The root session declares what gate can bridge (servers register some tools only for
// clients that sample or elicit); lists for a client are asked on the root session of its
// profile, and each bridged session declares exactly what its client declared.
json::object root_capabilities() {
    return protocol::capabilities_of(protocol::full_profile);
}
} // namespace

struct upstream_client::answer_reader {
    answer_reader() { parser.body_limit(max_answer_bytes); }
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
};

upstream_client::guard_ticket::~guard_ticket() {
    // A probe ended without an outcome: its slot is freed, at the actor that handed it out
    // only (a respawned actor has a probe of its own, or none).
    if (c_ && probe() && board_->actor() == granter_)
        caf::anon_send(granter_, guard_abandon{});
}

bool upstream_client::guard_ticket::settle_now(const upstream_failure* f) {
    if (!c_)
        return true;
    auto actor = board_->actor();
    bool success = !f || f->answer || !f->upstream_at_fault;
    // No actor: between a crash and its respawn, and the fresh actor starts closed anyway.
    // The probe of an actor that is gone decides nothing for its successor.
    bool nobody = !actor || (probe() && actor != granter_);
    if (!nobody && !(success && !probe()))
        return false;
    auto* c = std::exchange(c_, nullptr);
    if (nobody)
        return true;
    // A success changes nothing unless failures were counted (or are being counted): the
    // hot path sends no message.
    if (board_->view()->failures > 0 || c->failures_out_ > 0)
        caf::anon_send(actor, guard_success{false, {}});
    c->share_success();
    return true;
}

asio::awaitable<void> upstream_client::guard_ticket::settle(const upstream_failure* f) {
    if (settle_now(f))
        co_return;
    auto* c = std::exchange(c_, nullptr);
    auto actor = board_->actor();
    bool success = !f || f->answer || !f->upstream_at_fault;
    if (success) {
        co_await ask<bool>(actor, [](reply_to<bool> counted) {
            return guard_success{true, std::move(counted)};
        });
        c->share_success();
        co_return;
    }
    ++c->failures_out_;
    co_await ask<bool>(actor, [&](reply_to<bool> counted) {
        return guard_failure{probe(), f->message, std::move(counted)};
    });
    --c->failures_out_;
    if (c->fleet_)
        co_await c->share_failure();
}

asio::awaitable<void> upstream_client::share_failure() {
    auto fleet = fleet_;
    auto counted = co_await fleet->breaker_failure(cfg_.id);
    if (counted)
        fleet_failures_ = *counted;
    auto view = board_->view();
    if (view->breaker == circuit_breaker::state::closed && counted &&
        *counted >= cfg_.circuit_breaker.failure_threshold)
        if (auto actor = board_->actor()) {
            auto rest = std::chrono::milliseconds(cfg_.circuit_breaker.half_open_after_ms);
            co_await ask<bool>(actor, [&](reply_to<bool> done) {
                return fleet_opened{rest, std::move(done)};
            });
            view = board_->view();
        }
    auto now = clock::now();
    if (view->breaker == circuit_breaker::state::open && view->reopens_at > now)
        fleet->breaker_opened(cfg_.id,
                              std::chrono::ceil<std::chrono::milliseconds>(view->reopens_at - now));
}

void upstream_client::share_success() {
    if (fleet_ && fleet_failures_ > 0) {
        fleet_->breaker_success(cfg_.id);
        fleet_failures_ = 0;
    }
}

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

std::optional<std::variant<upstream_client::guard_ticket, upstream_failure>>
upstream_client::admit_now(guard_use use) {
    auto decision = lease_.decide(*board_->view(), use, clock::now());
    if (std::holds_alternative<guard_lease::admit_here>(decision))
        return guard_ticket(*this);
    if (auto* r = std::get_if<upstream_guard::refused>(&decision))
        return refusal(*r);
    return std::nullopt;
}

asio::awaitable<std::variant<upstream_client::guard_ticket, upstream_failure>>
upstream_client::admit(guard_use use) {
    for (;;) {
        if (auto decided = admit_now(use))
            co_return std::move(*decided);
        auto view = board_->view();
        auto now = clock::now();
        auto actor = board_->actor();
        auto demand = lease_.demand(now);
        std::optional<guard_answer> answer;
        auto ask_actor = [&]() -> asio::awaitable<void> {
            if (actor)
                answer = co_await ask<guard_answer>(actor, [&](reply_to<guard_answer> reply) {
                    return guard_ask{use, demand, std::move(reply)};
                });
        };
        // A batch of slots is asked for by one call at a time; the others spend what it
        // brings. The half-open probe is asked for directly: the actor hands it to one.
        if (view->breaker == circuit_breaker::state::closed) {
            // A batch of the window: the fleet's when it shares one, else the actor's.
            std::optional<sliding_window::batch> shared;
            auto ask_batch = [&]() -> asio::awaitable<void> {
                if (fleet_ && cfg_.rate_limit)
                    shared = co_await fleet_->take_window(
                        "upstream:" + cfg_.id, cfg_.rate_limit->requests_per_minute, demand);
                if (!shared)
                    co_await ask_actor();
            };
            if (!co_await slot_ask_.run_or_wait(ask_batch))
                continue;
            if (shared) {
                if (shared->taken == 0)
                    co_return refusal({upstream_guard::refused::reason::rate_limited,
                                       std::max(shared->wait, std::chrono::milliseconds(1))});
                lease_.grant(shared->taken, shared->until, clock::now());
                co_return guard_ticket(*this);
            }
        } else {
            co_await ask_actor();
        }
        // No actor to ask (between a crash and its respawn) or no answer: the call goes (fail
        // open). gate's own bookkeeping failed, not the upstream.
        if (!answer)
            co_return guard_ticket(*this);
        if (auto* r = std::get_if<upstream_guard::refused>(&*answer))
            co_return refusal(*r);
        auto& granted = std::get<upstream_guard::granted>(*answer);
        lease_.grant(granted.tokens, granted.until, clock::now());
        co_return guard_ticket(*this, granted.probe ? actor : upstream_actor{});
    }
}

upstream_failure upstream_client::refusal(const upstream_guard::refused& r) const {
    upstream_failure f;
    f.retry_after = r.retry_after;
    if (r.why == upstream_guard::refused::reason::circuit_open) {
        f.what = upstream_failure::kind::circuit_open;
        f.message = "circuit open after repeated failures; next attempt in " +
                    std::to_string(r.retry_after.count()) + " ms";
    } else if (r.why == upstream_guard::refused::reason::given_up) {
        // The supervisor gave up on the upstream's actor: refused by gate's own guards like an
        // open circuit (-32041), with no retry hint (nothing reopens it but a reload).
        f.what = upstream_failure::kind::circuit_open;
        f.message = "gate gave up restarting its guard actor after repeated crashes (a reload "
                    "retries)";
    } else {
        f.what = upstream_failure::kind::rate_limited;
        f.message = "rate limit of " + std::to_string(cfg_.rate_limit->requests_per_minute) +
                    " requests per minute reached; retry in " +
                    std::to_string(whole_seconds(r.retry_after)) + " s";
    }
    return f;
}

circuit_breaker::state upstream_client::breaker_state() const {
    return board_->view()->shown(clock::now());
}

std::vector<upstream_client::endpoint_health> upstream_client::endpoints() const {
    std::vector<endpoint_health> out;
    auto view = board_->view();
    for (const auto& ep : endpoints_)
        out.push_back(
            {ep->url, ep->index < view->in_rotation.size() && view->in_rotation[ep->index]});
    return out;
}

void upstream_client::endpoint_failed(endpoint& ep, const std::string& why) {
    if (auto actor = board_->actor())
        caf::anon_send(actor, endpoint_down{ep.index, why});
}

void upstream_client::reset_session(upstream_session& s) {
    s.life.reset();
    s.state = {};
    s.ep = nullptr;
    if (s.listening)
        s.listening->lowest().close();
}

upstream_client::session_ptr upstream_client::session_for(const call_context& ctx) {
    if (ctx.bridge.empty()) {
        if (ctx.caller)
            return nullptr; // a caller's credential never opens a shared session
        if (ctx.profile == protocol::full_profile || ctx.profile >= protocol::profile_count)
            return root_;
        auto& r = profile_roots_[ctx.profile];
        if (!r) {
            r = std::make_shared<upstream_session>();
            r->capabilities = protocol::capabilities_of(ctx.profile);
        }
        return r;
    }
    auto& s = bridged_[ctx.bridge];
    if (!s) {
        s = std::make_shared<upstream_session>();
        s->bridge = ctx.bridge;
        if (ctx.client_capabilities)
            s->capabilities = *ctx.client_capabilities;
    }
    if (ctx.caller) {
        // Bridges are keyed by a session bound to one principal, or by the principal itself;
        // another principal's credential on it would be a bug, refused rather than sent.
        if (s->caller && !s->caller->same_principal(*ctx.caller))
            return nullptr;
        s->caller = ctx.caller; // its latest token
    }
    return s;
}

asio::awaitable<std::variant<upstream_connection, upstream_failure>>
upstream_client::connect(endpoint& ep) {
    if (ep.resolved.empty()) {
        auto found = co_await resolve_host(ex_, ep.host, ep.port);
        if (auto* why = std::get_if<std::string>(&found)) {
            endpoint_failed(ep, "cannot resolve " + ep.host);
            co_return fail(upstream_failure::kind::connect_error,
                           "cannot resolve " + ep.host + ": " + *why);
        }
        ep.resolved = std::move(std::get<0>(found));
    }
    if (ep.tls && !tls_)
        tls_ = make_client_tls_context();
    auto c =
        co_await open_upstream_connection(ex_, ep.resolved, ep.host, ep.tls ? tls_.get() : nullptr,
                                          std::chrono::milliseconds(cfg_.timeouts.connect_ms));
    if (auto* err = std::get_if<std::string>(&c)) {
        // Resolution may be stale (a restarted upstream on a new address): resolve again next time.
        ep.resolved.clear();
        endpoint_failed(ep, *err);
        co_return fail(upstream_failure::kind::connect_error, ep.url + ": " + *err);
    }
    co_return std::move(std::get<upstream_connection>(c));
}

// One request/answer on an open connection (plain or TLS). `reusable` tells whether the
// connection may go back to the pool.
template <class Stream>
asio::awaitable<void>
upstream_client::round_trip(Stream& stream, const std::string& wire, const json::value* want_id,
                            http_answer& answer, bool& header_read, bool& reusable,
                            boost::system::error_code& ec, const call_context& ctx,
                            const upstream_session* origin, answer_reader& reader) {
    // On a plain connection what the socket takes at once goes without a wait (nearly always
    // all of it); TLS writes through the stream.
    std::size_t sent = 0;
    if constexpr (std::is_same_v<Stream, asio::ip::tcp::socket>)
        sent = write_now(stream, wire, ec);
    if (!ec && sent < wire.size())
        co_await asio::async_write(stream, asio::buffer(wire.data() + sent, wire.size() - sent),
                                   asio::redirect_error(asio::use_awaitable, ec));
    if (ec)
        co_return;
    auto& buf = reader.buf;
    auto& parser = reader.parser;
    co_await read_header(stream, buf, parser, ec);
    if (ec)
        co_return;
    header_read = true;
    const auto& head = parser.get();
    answer.status = static_cast<int>(head.result_int());
    if (auto it = head.find("Mcp-Session-Id"); it != head.end())
        answer.session_id = std::string(it->value());
    std::string_view ctype;
    if (auto it = head.find(http::field::content_type); it != head.end())
        ctype = it->value();
    if (ctype.starts_with("text/event-stream") && answer.status == 200) {
        sse_parser sse;
        std::size_t consumed = 0;
        while (!answer.message && !parser.is_done()) {
            co_await http::async_read_some(stream, buf, parser,
                                           asio::redirect_error(asio::use_awaitable, ec));
            if (ec)
                break;
            auto& body = parser.get().body();
            for (auto& ev : sse.feed(std::string_view(body).substr(consumed))) {
                boost::system::error_code jec;
                auto v = json::parse(ev.data, jec);
                auto* obj = v.if_object();
                if (jec || !obj)
                    continue;
                auto* id = obj->if_contains("id");
                if (obj->contains("method")) {
                    // The upstream's own request or notification, sent while this call runs.
                    upstream_message m(std::move(*obj), std::move(ev.data));
                    if (ctx.on_server_message)
                        ctx.on_server_message(std::move(m));
                    else if (origin)
                        dispatch(*origin, std::move(m));
                    continue;
                }
                if (id && (!want_id || *id == *want_id)) {
                    answer.message = upstream_message(std::move(*obj), std::move(ev.data));
                    break;
                }
            }
            consumed = body.size();
        }
        reusable = parser.is_done() && parser.keep_alive();
        // The answer came before the stream's end (a separate write of the server's): the
        // end is read in the background rather than waited for or the connection dropped.
        answer.stream_unfinished = answer.message && !ec && !parser.is_done();
        co_return;
    }
    parse_buffered(parser, buf, ec);
    if (!ec && !parser.is_done())
        co_await http::async_read(stream, buf, parser,
                                  asio::redirect_error(asio::use_awaitable, ec));
    reusable = !ec && parser.keep_alive();
    // Checked to be a JSON object, not parsed: most answers are passed on as text.
    if (auto& body = parser.get().body(); !ec && ctype.starts_with("application/json")) {
        protocol::object_members members;
        if (protocol::is_json(body, &members) && body[body.find_first_not_of(" \t\r\n")] == '{')
            answer.message = upstream_message::of_text(std::move(body), std::move(members));
    }
}

upstream_client::outgoing_message upstream_client::outgoing(const json::object& msg,
                                                            std::string_view source) {
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
upstream_client::post_wire(const endpoint& ep, const outgoing_message& msg,
                           const session_state& session, const call_context& ctx,
                           std::string_view credential) const {
    // One contiguous buffer per request: Beast's field-by-field serializer showed up in
    // profiles of the proxy path (docs/benchmarks.md).
    const auto& body = msg.body;
    std::string wire;
    wire.reserve(body.size() + 512);
    wire.append("POST ").append(ep.target).append(" HTTP/1.1\r\n");
    header_writer head(wire);
    head.field("Host", ep.authority);
    wire.append("Content-Type: application/json\r\nAccept: application/json, "
                "text/event-stream\r\nUser-Agent: gate/");
    wire.append(gate_version).append("\r\n");
    if (!session.id.empty())
        head.field("Mcp-Session-Id", session.id);
    if (!session.protocol_version.empty())
        head.field("MCP-Protocol-Version", session.protocol_version);
    if (session.protocol_version == protocol::modern_protocol_version && !msg.method.empty()) {
        // 2026-07-28: the method, and the name a call is about, mirrored in headers.
        head.field("Mcp-Method", msg.method);
        if (!msg.name.empty())
            head.field("Mcp-Name", protocol::encode_header_value(msg.name));
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

asio::awaitable<std::variant<upstream_client::http_answer, upstream_failure>>
upstream_client::exchange(endpoint& ep, const outgoing_message& msg, const session_state& session,
                          const call_context& ctx, clock::time_point deadline,
                          const upstream_session* origin) {
    auto cred = credential_now(origin);
    if (!cred)
        cred = co_await credential(origin);
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
        upstream_connection conn;
        if (reused) {
            conn = std::move(*pooled);
        } else {
            auto c = co_await connect(ep);
            if (auto* f = std::get_if<upstream_failure>(&c))
                co_return *f;
            conn = std::move(std::get<upstream_connection>(c));
        }
        auto remaining = deadline - clock::now();
        if (remaining <= clock::duration::zero())
            co_return fail(upstream_failure::kind::timeout, "request timeout");
        http_answer answer;
        bool header_read = false, reusable = false;
        boost::system::error_code ec;
        // On the heap: an unfinished event stream hands it to the drain.
        auto reader = std::make_shared<answer_reader>();
        {
            // The request's deadline, kept by the io thread's watch (no timer of its own):
            // passed, it closes the connection and the call fails as timed out.
            bool expired = false;
            auto deadline_kept = watch_.arm(deadline, [&expired, &socket = conn.lowest().socket()] {
                expired = true;
                boost::system::error_code ignored;
                socket.close(ignored);
            });
            if (conn.tls)
                co_await round_trip(*conn.tls, wire, want_id, answer, header_read, reusable, ec,
                                    ctx, origin, *reader);
            else // the socket itself: the deadline is the watch's, not the stream's expiry,
                 // and Beast's stream would wrap every read in its timer bookkeeping
                co_await round_trip(conn.plain->socket(), wire, want_id, answer, header_read,
                                    reusable, ec, ctx, origin, *reader);
            if (expired) {
                ec = beast::error::timeout;
                reusable = false;
            }
        }
        if (answer.stream_unfinished && !closed_)
            asio::co_spawn(ex_, drain(ep, std::move(conn), std::move(reader)), asio::detached);
        if (ec && !header_read) {
            // A pooled connection the upstream closed while idle: its idle siblings are likely
            // closed too. Retry once on a fresh connection.
            if (reused && ec != beast::error::timeout) {
                ep.idle.clear();
                continue;
            }
            if (ec == beast::error::timeout)
                co_return fail(upstream_failure::kind::timeout,
                               "upstream did not answer within " +
                                   std::to_string(cfg_.timeouts.request_ms) + " ms");
            co_return fail(upstream_failure::kind::connect_error,
                           "connection to " + ep.url + " failed: " + ec.message());
        }
        if (ec && !answer.message) {
            if (ec == beast::error::timeout)
                co_return fail(upstream_failure::kind::timeout,
                               "upstream did not answer within " +
                                   std::to_string(cfg_.timeouts.request_ms) + " ms");
            co_return fail(upstream_failure::kind::protocol,
                           "reading the answer of " + ep.url + " failed: " + ec.message());
        }
        if (reusable && !ep.idle.full())
            ep.idle.give(std::move(conn), clock::now());
        if (per_caller_ && (answer.status == 401 || answer.status == 403)) {
            // The upstream refused the caller's own credential (or gate's, which has none):
            // the caller's business, not a sign of the upstream's health.
            auto f = fail(upstream_failure::kind::http_status,
                          origin && origin->caller ? "it refused the caller's credential (HTTP " +
                                                         std::to_string(answer.status) + ")"
                                                   : "it needs a caller's credential (HTTP " +
                                                         std::to_string(answer.status) + ")",
                          answer.status);
            f.upstream_at_fault = false;
            co_return f;
        }
        co_return answer;
    }
}

asio::awaitable<void> upstream_client::drain(endpoint& ep, upstream_connection conn,
                                             std::shared_ptr<answer_reader> reader) {
    auto self = shared_from_this(); // `ep` lives as long as the client
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
    if (ec || !reader->parser.keep_alive() || closed_ || ep.idle.full())
        co_return;
    conn.lowest().expires_never();
    ep.idle.give(std::move(conn), clock::now());
}

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

asio::awaitable<std::optional<upstream_failure>>
upstream_client::ensure_session(session_ptr s, const call_context& ctx) {
    auto deadline = clock::now() + budget_for(ctx);
    for (;;) {
        switch (s->life.next(closed_)) {
        case session_lifecycle::step::use:
            co_return std::nullopt;
        case session_lifecycle::step::ended:
            co_return fail(upstream_failure::kind::connect_error,
                           "upstream " + cfg_.id + " session was ended");
        case session_lifecycle::step::wait: {
            // Single-flight: later callers wait for the handshake already under way, but no
            // longer than their own budget (a /health probe must not inherit a 60 s wait).
            auto done = s->handshake_done;
            asio::steady_timer bound(ex_, deadline);
            boost::system::error_code done_ec, bound_ec; // cancellation is the normal wake-up
            auto which =
                co_await (done->async_wait(asio::redirect_error(asio::use_awaitable, done_ec)) ||
                          bound.async_wait(asio::redirect_error(asio::use_awaitable, bound_ec)));
            if (which.index() == 1)
                co_return fail(upstream_failure::kind::timeout,
                               "upstream " + cfg_.id + " handshake still under way after " +
                                   std::to_string(budget_for(ctx).count()) + " ms");
            if (s->life.next(closed_) == session_lifecycle::step::handshake)
                co_return fail(upstream_failure::kind::connect_error,
                               "upstream " + cfg_.id + " handshake failed");
            continue;
        }
        case session_lifecycle::step::handshake:
            break;
        }
        s->life.begin_handshake();
        s->handshake_done = std::make_shared<asio::steady_timer>(ex_, clock::time_point::max());
        std::optional<upstream_failure> failure;
        try {
            failure = co_await handshake(s, ctx);
        } catch (const std::exception& e) {
            failure = fail(upstream_failure::kind::protocol,
                           std::string("handshake failed: ") + e.what());
        }
        s->life.end_handshake();
        // Waiters hold their own reference to the timer; cancelling wakes them all.
        std::exchange(s->handshake_done, nullptr)->cancel();
        if (failure)
            co_return failure;
    }
    co_return std::nullopt;
}

asio::awaitable<upstream_reply>
upstream_client::request(std::string_view method, json::object params, const call_context& ctx) {
    auto admitted = co_await admit(ctx.use);
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
            if (--c.in_flight_ == 0 && c.retiring_ && !c.closed_)
                asio::post(c.ex_, [self = c.shared_from_this()] {
                    if (self->in_flight_ == 0 && !self->closed_)
                        self->close();
                });
        }
    } counted(*this);
    std::optional<json::object> heard; // a copy only while recording
    std::chrono::system_clock::time_point at;
    if (tap_) {
        heard = params;
        at = std::chrono::system_clock::now();
    }
    auto reply = co_await send_request(method, std::move(params), ctx);
    if (heard)
        overheard(ctx, at, method, std::move(*heard), reply);
    if (const auto* f = std::get_if<upstream_failure>(&reply); !admitted.settle_now(f))
        co_await admitted.settle(f);
    co_return reply;
}

void upstream_client::retire(std::chrono::steady_clock::duration bound) {
    if (closed_)
        return;
    if (in_flight_ == 0) {
        close();
        return;
    }
    retiring_ = true;
    auto timer = std::make_shared<asio::steady_timer>(ex_, bound);
    timer->async_wait([weak = weak_from_this(), timer](boost::system::error_code ec) {
        if (auto self = weak.lock(); self && !ec && !self->closed_)
            self->close(); // the drain's bound: what is still in flight is cut
    });
}

namespace {
// A JSON-RPC response to request `id`: what an upstream must answer. Anything else (an HTTP
// error page in JSON, another id) is a failed call, not an answer to pass on.

// `"key":<the answer as the client wrote it>` appended to the members in `out`.
void append_member(std::string& out, std::string_view key, const protocol::sourced_object& answer) {
    if (!out.empty())
        out += ',';
    out += json::serialize(json::string_view(key.data(), key.size()));
    out += ':';
    if (answer.source.empty())
        protocol::write_json(answer.value, out);
    else
        out += answer.source;
}

// What a continued call's params are written from: the client's text, with its answers and
// the upstream's state (empty: none) as they were written. Only a guide: whatever does not
// read as the params is written from them.
std::string continued_source(std::string_view source, std::string_view responses,
                             std::string_view state) {
    std::string out(source.empty() ? std::string_view("{}") : source);
    if (auto with = protocol::set_member(out, {}, "inputResponses", responses))
        out = std::move(*with);
    if (!state.empty())
        if (auto with = protocol::set_member(out, {}, "requestState", state))
            out = std::move(*with);
    return out;
}

// A 2026-07-28 upstream's input_required `result` (read from `raw`), answered by asking the
// client each embedded request: the call's next round gets the answers and the upstream's
// state in `params`, and `continued` becomes the text they are written from (the client's
// answers and the upstream's state as they were written). The failure when the client gave
// no answer.
asio::awaitable<std::optional<upstream_failure>>
answer_input(const json::object& result, std::string_view raw, const call_context& ctx,
             json::object& params, std::string_view source, std::string& continued) {
    json::object responses;
    std::string responses_text;
    if (auto* reqs = result.if_contains("inputRequests"); reqs && reqs->is_object())
        for (auto& [key, embedded] : reqs->as_object()) {
            if (!embedded.is_object())
                continue;
            auto asked = protocol::find_member(raw, {"result", "inputRequests", key});
            auto got = co_await ctx.ask_client(protocol::sourced_object{
                embedded.as_object(),
                asked ? std::string(raw.substr(asked->begin, asked->end - asked->begin)) : ""});
            if (!got) {
                auto f = fail(upstream_failure::kind::protocol,
                              "the client did not answer the upstream's " + std::string(key) +
                                  " input request");
                f.upstream_at_fault = false;
                co_return f;
            }
            append_member(responses_text, key, *got);
            responses[key] = std::move(got->value);
        }
    params["inputResponses"] = std::move(responses);
    if (auto* state = result.if_contains("requestState"))
        params["requestState"] = *state;
    else
        params.erase("requestState");
    auto state_text = protocol::find_member(raw, {"result", "requestState"});
    auto next = continued_source(
        source, "{" + responses_text + "}",
        state_text ? raw.substr(state_text->begin, state_text->end - state_text->begin)
                   : std::string_view());
    continued = std::move(next); // `source` may have been `continued`
    co_return std::nullopt;
}
} // namespace

asio::awaitable<upstream_reply> upstream_client::send_request(std::string_view method,
                                                              json::object params,
                                                              const call_context& ctx) {
    auto deadline = clock::now() + budget_for(ctx);
    // Empty params are left out, except where 2026-07-28 adds its envelope.
    bool with_params = !params.empty() || modern_;
    auto s = session_for(ctx);
    if (!s)
        co_return fail(upstream_failure::kind::protocol,
                       "upstream " + cfg_.id +
                           " takes each caller's own credential and this "
                           "request has no session of that caller to go on");
    session_use in_use(*s);
    int input_rounds = 0;
    // What the params are written from: the client's text, then with the input it gave.
    std::string_view source = ctx.params_source;
    std::string continued;
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (auto failure = co_await ensure_session(s, ctx))
            co_return *failure;
        if (modern_) {
            protocol::add_envelope(
                params, ctx.client_capabilities ? *ctx.client_capabilities : s->capabilities,
                json::object{{"name", "gate"}, {"version", gate_version}});
            // The level the client set (logging/setLevel) travels with each request; a
            // 2026-07-28 client's own level in its `_meta` stays as it sent it.
            auto& meta = params["_meta"].as_object();
            if (s->log_level && !meta.contains(protocol::meta_log_level))
                meta[protocol::meta_log_level] = *s->log_level;
        }
        auto id = next_id_++;
        if (ctx.on_sent)
            ctx.on_sent(id);
        auto generation = s->life.generation();
        auto session = s->state; // the exchange may outlive a reset of the shared one
        outgoing_message out{
            protocol::request_text(id, method, with_params ? &params : nullptr, source), method,
            protocol::named_value(method, &params), true, id};
        auto r = co_await exchange(*s->ep, out, session, ctx, deadline, s.get());
        if (auto* f = std::get_if<upstream_failure>(&r))
            co_return *f;
        auto& answer = std::get<http_answer>(r);
        if (answer.status == 404 && attempt == 0 && !session.id.empty()) {
            // The upstream retired our session (restart, expiry): re-initialize and retry once.
            // Without a session (2026-07-28) a 404 is the answer itself (an unknown method),
            // and sending again would invoke the upstream twice.
            // Only the request that used the current session resets it; others that failed on
            // the same old session join the handshake already under way.
            if (s->life.forgotten(generation))
                reset_session(*s);
            continue;
        }
        if (!answer.message)
            co_return fail(upstream_failure::kind::http_status,
                           "upstream answered HTTP " + std::to_string(answer.status) +
                               " without a JSON-RPC response",
                           answer.status);
        if (!is_response_to(*answer.message, id)) {
            const auto& raw = answer.message->raw();
            auto text = raw.size() > 200 ? raw.substr(0, 200) + "..." : raw;
            co_return fail(
                upstream_failure::kind::http_status,
                "upstream answered HTTP " + std::to_string(answer.status) +
                    " with a body that is not a JSON-RPC response to the request: " + text,
                answer.status);
        }
        if (modern_ && ctx.ask_client) {
            // 2026-07-28 asks for input by answering input_required; a client of an earlier
            // revision is asked each embedded request, and the call is retried with its
            // answers and the upstream's state.
            auto type = answer.message->value_at({"result", "resultType"});
            if (type && type->is_string() && type->get_string() == "input_required") {
                auto* result = answer.message->body()["result"].if_object();
                if (++input_rounds > max_input_rounds)
                    co_return fail(upstream_failure::kind::protocol,
                                   "upstream asked for input more than " +
                                       std::to_string(max_input_rounds) + " times in one call");
                if (auto f = co_await answer_input(*result, answer.message->raw(), ctx, params,
                                                   source, continued))
                    co_return *f;
                source = continued;
                --attempt; // not a lost session: the same call, continued
                continue;
            }
        }
        co_return std::move(*answer.message);
    }
    co_return fail(upstream_failure::kind::http_status, "upstream lost the session twice", 404);
}

asio::awaitable<bool> upstream_client::deliver(const std::string& bridge, json::object message,
                                               std::string source) {
    auto s = root_;
    if (!bridge.empty()) {
        auto it = bridged_.find(bridge);
        if (it == bridged_.end())
            co_return false;
        s = it->second;
    }
    if (!s->life.ready())
        co_return false;
    call_context ctx;
    auto r = co_await exchange(*s->ep, outgoing(message, source), s->state, ctx,
                               clock::now() + budget_for(ctx), s.get());
    auto* answer = std::get_if<http_answer>(&r);
    co_return answer && answer->status >= 200 && answer->status < 300;
}

std::optional<upstream_client::session_address>
upstream_client::address_of(const std::string& bridge) const {
    auto it = bridged_.find(bridge);
    if (it == bridged_.end() || !it->second->life.ready() || !it->second->ep ||
        it->second->state.id.empty())
        return std::nullopt;
    const auto& s = *it->second;
    return session_address{s.state.id, s.state.protocol_version, s.ep->index};
}

asio::awaitable<bool> upstream_client::deliver_to(const session_address& to, json::object message,
                                                  std::string source) {
    if (to.endpoint >= endpoints_.size())
        co_return false;
    upstream_session carrier; // no caller: gate's own credential for the upstream
    call_context ctx;
    auto r = co_await exchange(*endpoints_[to.endpoint], outgoing(message, source),
                               session_state{to.id, to.protocol_version}, ctx,
                               clock::now() + budget_for(ctx), &carrier);
    auto* answer = std::get_if<http_answer>(&r);
    co_return answer && answer->status >= 200 && answer->status < 300;
}

asio::awaitable<void> upstream_client::set_log_level(const std::string& bridge, std::string level,
                                                     const json::object& capabilities) {
    call_context ctx;
    ctx.bridge = bridge;
    ctx.client_capabilities = &capabilities;
    auto s = session_for(ctx);
    if (!s)
        co_return;
    s->log_level = level;
    // Sent at the handshake when the session is not open yet. 2026-07-28 has no setLevel:
    // the level travels in the `_meta` of each request on this session instead.
    if (!s->life.ready() || modern_)
        co_return;
    auto admitted = co_await admit(guard_use::upkeep);
    if (!std::holds_alternative<guard_ticket>(admitted))
        co_return; // the level is sent with the next handshake of this session
    auto ticket = std::move(std::get<guard_ticket>(admitted));
    json::object msg{{"jsonrpc", "2.0"},
                     {"id", next_id_++},
                     {"method", "logging/setLevel"},
                     {"params", {{"level", std::move(level)}}}};
    auto r = co_await exchange(*s->ep, outgoing(msg), s->state, ctx, clock::now() + budget_for(ctx),
                               s.get());
    co_await ticket.settle(std::get_if<upstream_failure>(&r));
}

bool upstream_client::retire_bridge(const std::string& bridge) {
    auto it = bridged_.find(bridge);
    if (it != bridged_.end() && it->second->life.in_use())
        return false;
    end_bridge(bridge);
    return true;
}

void upstream_client::end_bridge(const std::string& bridge) {
    auto it = bridged_.find(bridge);
    if (it == bridged_.end())
        return;
    auto s = std::move(it->second);
    bridged_.erase(it);
    bool was_ready = s->life.end();
    if (s->listening)
        s->listening->lowest().close();
    if (s->relisten)
        s->relisten->cancel();
    if (was_ready && s->ep && !s->state.id.empty())
        asio::co_spawn(ex_, send_delete(*s->ep, s->state, s->caller), asio::detached);
}

void upstream_client::close() {
    closed_ = true;
    if (probing_)
        board_->on_probe_round(nullptr);
    std::vector<std::string> all;
    for (auto& [bridge, s] : bridged_)
        all.push_back(bridge);
    for (auto& b : all)
        end_bridge(b);
    for (const auto& r : profile_roots_)
        if (r) {
            r->life.end();
            if (r->listening)
                r->listening->lowest().close();
            if (r->relisten)
                r->relisten->cancel();
        }
    if (root_->listening)
        root_->listening->lowest().close();
    if (root_->relisten)
        root_->relisten->cancel();
    if (listen_conn_)
        std::exchange(listen_conn_, nullptr)->lowest().close();
    if (listen_pause_)
        listen_pause_->cancel();
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
    if (on_session_message_)
        on_session_message_(origin.bridge, std::move(message));
}

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

asio::awaitable<void>
upstream_client::send_delete(endpoint& ep, session_state state,
                             std::shared_ptr<const caller_credential> caller) {
    auto self = shared_from_this();
    upstream_session owner; // only its caller matters to the credential
    owner.caller = std::move(caller);
    auto cred = co_await credential(&owner);
    if (!std::holds_alternative<std::string>(cred))
        co_return;
    auto c = co_await connect(ep);
    auto* conn = std::get_if<upstream_connection>(&c);
    if (!conn)
        co_return;
    std::string wire = "DELETE " + ep.target + " HTTP/1.1\r\n";
    header_writer head(wire);
    head.field("Host", ep.authority);
    head.field("User-Agent", "gate/" + std::string(gate_version));
    head.field("Mcp-Session-Id", state.id);
    if (!state.protocol_version.empty())
        head.field("MCP-Protocol-Version", state.protocol_version);
    if (const auto& line = std::get<std::string>(cred); !line.empty())
        head.line(line);
    if (!head.ok()) {
        spdlog::warn("{}", refused_head(head).message);
        co_return;
    }
    wire += "Content-Length: 0\r\nConnection: close\r\n\r\n";
    conn->lowest().expires_after(std::chrono::milliseconds(cfg_.timeouts.request_ms));
    auto run = [&](auto& stream) -> asio::awaitable<void> {
        boost::system::error_code ec;
        co_await asio::async_write(stream, asio::buffer(wire),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            co_return;
        beast::flat_buffer buf;
        http::response<http::string_body> res;
        co_await http::async_read(stream, buf, res, asio::redirect_error(asio::use_awaitable, ec));
    };
    if (conn->tls)
        co_await run(*conn->tls);
    else
        co_await run(*conn->plain);
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

asio::awaitable<bool>
upstream_client::follow_stream(upstream_connection& conn, const std::string& wire,
                               bool require_event_stream, std::function<void()> on_open,
                               std::function<bool()> going,
                               std::function<void(upstream_message)> on_message) {
    bool opened = false;
    auto run = [&](auto& stream) -> asio::awaitable<void> {
        boost::system::error_code ec;
        conn.lowest().expires_after(std::chrono::milliseconds(cfg_.timeouts.connect_ms));
        co_await asio::async_write(stream, asio::buffer(wire),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            co_return;
        beast::flat_buffer buf;
        http::response_parser<http::string_body> parser;
        parser.body_limit(boost::none);
        co_await http::async_read_header(stream, buf, parser,
                                         asio::redirect_error(asio::use_awaitable, ec));
        auto type = parser.get()[http::field::content_type];
        if (ec || parser.get().result_int() != 200 ||
            (require_event_stream && !type.starts_with("text/event-stream")))
            co_return;
        opened = true;
        on_open();
        conn.lowest().expires_never();
        sse_parser sse;
        while (!parser.is_done() && going()) {
            co_await http::async_read_some(stream, buf, parser,
                                           asio::redirect_error(asio::use_awaitable, ec));
            if (ec)
                break;
            auto& body = parser.get().body();
            auto events = sse.feed(body);
            body.clear();
            for (auto& ev : events) {
                boost::system::error_code jec;
                auto v = json::parse(ev.data, jec);
                if (!jec && v.is_object() && v.as_object().contains("method"))
                    on_message(upstream_message(std::move(v.as_object()), std::move(ev.data)));
            }
        }
    };
    if (conn.tls)
        co_await run(*conn.tls);
    else
        co_await run(*conn.plain);
    co_return opened;
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

asio::awaitable<std::variant<json::object, upstream_failure>>
upstream_client::initialize_result(const call_context& ctx) {
    auto admitted = co_await admit(guard_use::upkeep);
    if (auto* refused = std::get_if<upstream_failure>(&admitted))
        co_return std::move(*refused);
    auto ticket = std::move(std::get<guard_ticket>(admitted));
    // A per-caller upstream is asked on that caller's session: its answer may depend on who asks.
    auto s = session_for(ctx);
    if (!s) {
        auto f = fail(upstream_failure::kind::protocol,
                      "upstream " + cfg_.id + " takes each caller's own credential");
        f.upstream_at_fault = false;
        co_await ticket.settle(&f);
        co_return f;
    }
    auto failure = co_await ensure_session(s, ctx);
    co_await ticket.settle(failure ? &*failure : nullptr);
    if (failure)
        co_return *failure;
    co_return s->init_result;
}

asio::awaitable<std::variant<json::array, upstream_failure>>
upstream_client::fetch_list(std::string_view method, std::string_view key, const call_context& ctx,
                            std::vector<std::string>* sources) {
    // One admission for the whole list, however many pages the upstream serves it in.
    auto admitted = co_await admit(ctx.use);
    if (auto* refused = std::get_if<upstream_failure>(&admitted))
        co_return std::move(*refused);
    co_return co_await fetch_list(method, key, ctx, std::move(std::get<guard_ticket>(admitted)),
                                  sources);
}

asio::awaitable<std::variant<json::array, upstream_failure>>
upstream_client::fetch_list(std::string_view method, std::string_view key, const call_context& ctx,
                            guard_ticket ticket, std::vector<std::string>* sources) {
    json::array all;
    std::optional<std::string> cursor;
    for (int pages = 0; pages < 1000; ++pages) {
        json::object params;
        if (cursor)
            params["cursor"] = *cursor;
        std::optional<json::object> heard; // a copy only while recording
        std::chrono::system_clock::time_point at;
        if (tap_) {
            heard = params;
            at = std::chrono::system_clock::now();
        }
        auto r = co_await send_request(method, std::move(params), ctx);
        if (heard)
            overheard(ctx, at, method, std::move(*heard), r);
        co_await ticket.settle(std::get_if<upstream_failure>(&r));
        if (auto* f = std::get_if<upstream_failure>(&r))
            co_return *f;
        auto& msg = std::get<upstream_message>(r).body();
        auto* result = msg.if_contains("result");
        auto* obj = result ? result->if_object() : nullptr;
        if (!obj) {
            // An upstream without this capability answers an error: it has nothing to list.
            co_return all;
        }
        if (auto* items = obj->if_contains(key); items && items->is_array()) {
            if (sources) { // as the page's text has them, where it says so unambiguously
                auto texts =
                    protocol::element_texts(std::get<upstream_message>(r).raw(), {"result", key});
                for (std::size_t i = 0; i < items->as_array().size(); ++i)
                    sources->emplace_back(texts && texts->size() == items->as_array().size()
                                              ? (*texts)[i]
                                              : std::string_view());
            }
            for (auto& item : items->as_array())
                all.push_back(std::move(item));
        }
        auto* next = obj->if_contains("nextCursor");
        if (!next || !next->is_string() || next->get_string().empty())
            co_return all;
        cursor = std::string(next->get_string());
    }
    co_return fail(upstream_failure::kind::protocol, "upstream list has more than 1000 pages");
}

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
