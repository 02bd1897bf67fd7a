// The gateway's client of one upstream MCP server over streamable HTTP: keep-alive connection
// pools per endpoint, the shared root session and one bridged session per downstream client
// (each with its own handshake, mirroring that client's capabilities), JSON and SSE answers,
// the upstream's own messages on a call's stream and on each session's GET stream,
// re-initialization when the upstream forgets a session (404), and timeouts.
//
// Threading: an upstream_client lives on the single io thread (one io_context thread, see
// docs/architecture.md); its pools and session state are touched only from coroutines on it.
#pragma once

#include "actors/guard_board.hpp"
#include "actors/guard_lease.hpp"
#include "actors/upstream_guard.hpp"
#include "config/model.hpp"
#include "gateway/auth/upstream_credential.hpp"
#include "gateway/upstream/session_lifecycle.hpp"
#include "gateway/upstream/upstream_message.hpp"
#include "gateway/upstream/upstream_observer.hpp"
#include "protocol/client_profile.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/subscription_filter.hpp"
#include "transport/ask_flight.hpp"
#include "transport/client/upstream_connection.hpp"
#include "transport/http/deadline_watch.hpp"

#include <array>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace gate::transport {

class fleet_store;
class traffic_tap;

struct upstream_failure {
    // circuit_open and rate_limited: the upstream guards refused the call; it never left gate.
    enum class kind { connect_error, timeout, http_status, protocol, circuit_open, rate_limited };
    kind what;
    std::string message;
    int status = 0;
    std::optional<upstream_message> answer;   // the upstream's own JSON-RPC error, when it sent one
    std::chrono::milliseconds retry_after{0}; // circuit_open, rate_limited
    // False when the failure says nothing about the upstream's health (the client did not
    // answer an input request, a capability the upstream does not offer).
    bool upstream_at_fault = true;
};

// The upstream's JSON-RPC response (result or error), or why there is none.
using upstream_reply = std::variant<upstream_message, upstream_failure>;

struct call_context {
    std::string traceparent; // W3C trace context propagated to the upstream
    // The text a client's params were parsed from: the request's params are written from it,
    // so what the client wrote reaches the upstream as written, numbers included
    // (protocol/json_preserve). Empty: gate's own request.
    std::string_view params_source;
    // A client's invocation counts against upstreams[].rateLimit; gate's own upkeep (health
    // pings, resubscribing after a restart) is subject to the breaker only.
    guard_use use = guard_use::invocation;
    std::optional<std::chrono::milliseconds> timeout; // tighter than timeouts.requestMs
    // The downstream session whose bridged session carries the call; empty: the root session.
    std::string bridge;
    // The client's declared capabilities, mirrored when its bridged session is created.
    const boost::json::object* client_capabilities = nullptr;
    // The verified caller, for an upstream whose credential is the caller's own (passthrough,
    // token-exchange): its calls go on a bridged session of that caller only.
    std::shared_ptr<const caller_credential> caller;
    // On the root session, whose client profile it is for: an upstream lists to each profile
    // what it would list such a client directly (protocol/client_profile.hpp).
    protocol::client_profile profile = protocol::full_profile;
    // The call's own observer: the upstream's messages on this call's stream (sampling,
    // elicitation, roots, progress, logs), the id the request goes out under, the client's
    // answers to a 2026-07-28 upstream's input requests. Without one the messages go to the
    // client's observer and nobody hears the rest (upstream_observer.hpp). Not owned: it
    // outlives the call.
    upstream_observer* observer = nullptr;
    // The recorded request (gate --record) this call serves; 0: gate's own upkeep.
    std::uint64_t recorded = 0;

    static call_context traced(std::string traceparent) {
        call_context ctx;
        ctx.traceparent = std::move(traceparent);
        return ctx;
    }
};

class upstream_client : public std::enable_shared_from_this<upstream_client> {
public:
    upstream_client(boost::asio::any_io_executor ex, config::upstream cfg);
    ~upstream_client();

    const config::upstream& config() const { return cfg_; }

    // Who hears session-wide upstream traffic: messages on a session's GET stream, and on a
    // call's stream when the call has no observer of its own. Set before the first request.
    void observe(std::unique_ptr<upstream_observer> observer) { observer_ = std::move(observer); }

    // The upstream's guards: its actor decides and publishes them here (actors/guard_board).
    const std::shared_ptr<guard_board>& board() const { return board_; }

    // An admission through the upstream guards. Its outcome is reported once (settle); a
    // ticket dropped without one (its caller went away) frees the half-open probe it holds.
    class guard_ticket {
    public:
        // `granter`: the actor that handed out the half-open probe (null for other calls).
        guard_ticket(upstream_client& c, upstream_actor granter = {})
            : c_(&c), board_(c.board_), granter_(std::move(granter)) {}
        guard_ticket(guard_ticket&& o) noexcept
            : c_(std::exchange(o.c_, nullptr)), board_(std::move(o.board_)),
              granter_(std::move(o.granter_)) {}
        guard_ticket& operator=(guard_ticket&&) = delete;
        ~guard_ticket();
        // `f`: why the operation failed; null when the upstream answered. A failure, and the
        // probe's outcome either way, is counted by the upstream actor before this returns,
        // so the next admission sees the circuit it changed.
        boost::asio::awaitable<void> settle(const upstream_failure* f);
        // The same where no message must be waited for (a success outside the half-open
        // probe, nearly always): true when settled, false when settle must be awaited.
        bool settle_now(const upstream_failure* f);

    private:
        bool probe() const { return static_cast<bool>(granter_); }
        upstream_client* c_;
        std::shared_ptr<guard_board> board_; // outlives the client at shutdown
        upstream_actor granter_;
    };
    // Stage 6 for this upstream: an admission, or the refusal as a failure of kind
    // circuit_open or rate_limited. Every public operation that reaches the upstream is
    // admitted: by the caller (the pipeline's guards stage, passing the ticket on) or itself.
    // Decided from the published view without a message to the actor, except for the
    // half-open probe and a new batch of rate-limit slots.
    boost::asio::awaitable<std::variant<guard_ticket, upstream_failure>> admit(guard_use use);
    // The same where the lease decides without the actor (nearly always); nullopt where
    // admit must ask (a new batch, the half-open probe).
    std::optional<std::variant<guard_ticket, upstream_failure>> admit_now(guard_use use);
    // Sends one request on the root session, or on ctx.bridge's bridged session (created on
    // first use). The reply carries the gateway's upstream-side id; the caller puts its own
    // client's id back. Admitted here, or by the caller that passes its ticket.
    boost::asio::awaitable<upstream_reply>
    request(std::string_view method, boost::json::object params, const call_context& ctx);
    boost::asio::awaitable<upstream_reply> request(std::string_view method,
                                                   boost::json::object params,
                                                   const call_context& ctx, guard_ticket admitted);

    // Sends a notification or a response (the client's answer to an upstream request) on a
    // bridged session (empty: the root session). False when that session is gone or the
    // upstream refused it. `source`: the text the message was read from (a client's), which
    // it is written from (protocol/json_preserve); empty for gate's own.
    boost::asio::awaitable<bool> deliver(const std::string& bridge, boost::json::object message,
                                         std::string source = {});
    // Where a bridged session lives upstream, so another instance of a fleet can answer a
    // request the upstream sent on it (gateway/fleet/fleet_sessions.cpp).
    struct session_address {
        std::string id;
        std::string protocol_version;
        std::size_t endpoint = 0;
    };
    std::optional<session_address> address_of(const std::string& bridge) const;
    // Sends a response on the upstream session at `to` (one this instance may not hold).
    boost::asio::awaitable<bool> deliver_to(const session_address& to, boost::json::object message,
                                            std::string source = {});

    // The level a client asked for (`logging/setLevel`): sent to its bridged session now if
    // one is open, and at the handshake of one opened later.
    // `capabilities` are the client's, for a bridged session this creates.
    boost::asio::awaitable<void> set_log_level(const std::string& bridge, std::string level,
                                               const boost::json::object& capabilities);

    // Ends a bridged session: its GET stream is closed and the upstream told (DELETE).
    void end_bridge(const std::string& bridge);
    // Ends a bridged session the bridge keeper found idle, unless a request started on it
    // since (the keeper's picture is up to one batch old). False: kept for that reason.
    bool retire_bridge(const std::string& bridge);
    std::size_t bridges() const { return bridged_.size(); }
    // Whether the client of `bridge` has a bridged session here already (its capabilities
    // are only needed to create one).
    bool has_bridge(const std::string& bridge) const { return bridged_.contains(bridge); }

    // Ends every session's GET stream and every bridged session (shutdown, retirement).
    void close();
    // A reload retired this upstream: no new call reaches it (the new view has none), the calls
    // in flight finish, then it closes; at most `bound` after this (the drain).
    void retire(std::chrono::steady_clock::duration bound);
    std::size_t calls_in_flight() const { return in_flight_; }
    // With healthCheck.intervalMs: probes every endpoint on that interval until close()
    // (upstream_probes.cpp). Idempotent.
    void start_health_checks();
    // The fleet's shared store (gateway/fleet/fleet_store): this upstream's rate window and
    // breaker become the fleet's. Set once, before the first call.
    void share_through(std::shared_ptr<fleet_store> fleet) { fleet_ = std::move(fleet); }
    // gate --record: every request sent here and its answer are heard by the tap. Set once,
    // before the first call; without one nothing is recorded and nothing is copied.
    void record_through(std::shared_ptr<traffic_tap> tap) { tap_ = std::move(tap); }

    // Whether the upstream takes each caller's own credential (passthrough, token-exchange):
    // no shared session or list serves two principals.
    bool per_caller() const { return per_caller_; }

    // Whether the upstream speaks 2026-07-28 (for `auto`, known after the first handshake).
    bool modern() const { return modern_; }
    // Resource subscriptions gate holds on its own session for any number of clients,
    // counted: the first hold subscribes (resources/subscribe on the root session, or the URI
    // joins gate's subscriptions/listen at a 2026-07-28 upstream), the last release
    // unsubscribes. Why not, when the upstream refused (its JSON-RPC error in `answer`) or
    // cannot be reached.
    boost::asio::awaitable<std::optional<upstream_failure>>
    hold_subscription(const std::string& uri);
    void release_subscription(const std::string& uri);

    // The upstream's initialize result (after the handshake), for passthrough mode.
    boost::asio::awaitable<std::variant<boost::json::object, upstream_failure>>
    initialize_result(const call_context& ctx);

    // Fetches one complete list, following the upstream's own nextCursor pages. With
    // `sources`, each item's text as the upstream wrote it (empty where not known), in order,
    // for writing the list on as it was written (protocol/json_preserve).
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch_list(std::string_view method, std::string_view key, const call_context& ctx,
               std::vector<std::string>* sources = nullptr);
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch_list(std::string_view method, std::string_view key, const call_context& ctx,
               guard_ticket admitted, std::vector<std::string>* sources = nullptr);

    // Forgets the root session (the next request re-initializes).
    void reset_session() { reset_session(*root_); }

    // Stage 6, the upstream guards, as /metrics and /health show them.
    circuit_breaker::state breaker_state() const;
    struct endpoint_health {
        std::string url;
        bool in_rotation;
    };
    std::vector<endpoint_health> endpoints() const;

private:
    struct endpoint;
    struct http_answer;
    // The unguarded request, for operations already admitted.
    boost::asio::awaitable<upstream_reply>
    send_request(std::string_view method, boost::json::object params, const call_context& ctx);
    struct session_state {
        std::string id;
        std::string protocol_version;
    };
    // One upstream session: the root one, or a client's bridged one.
    struct upstream_session {
        std::string bridge; // empty: the root session
        boost::json::object capabilities;
        // Per-caller credentials: the principal this session was opened for, with the latest
        // token it presented (the session's own GET stream and DELETE carry it).
        std::shared_ptr<const caller_credential> caller;
        std::optional<std::string> log_level;
        session_state state;
        endpoint* ep = nullptr;
        session_lifecycle life; // ready, handshaking, ended, generation, in use
        boost::json::object init_result;
        std::shared_ptr<boost::asio::steady_timer> handshake_done; // cancelled when it ends
        std::shared_ptr<upstream_connection> listening;            // the open GET stream
        std::shared_ptr<boost::asio::steady_timer> relisten;       // the pause between streams
    };
    using session_ptr = std::shared_ptr<upstream_session>;

    // One message as it goes to an upstream: its text, and what the exchange (and the
    // 2026-07-28 header mirrors) read from it. Views point into the message it was made of.
    struct outgoing_message {
        std::string body;
        std::string_view method; // a request's or a notification's; empty for a response
        std::string_view name;   // the name a call is about (Mcp-Name), or empty
        bool request = false;    // has an id: an answer is awaited
        boost::json::value id;
    };
    // `source`: the text `msg` was read from, which it is written from (empty: none).
    static outgoing_message outgoing(const boost::json::object& msg, std::string_view source = {});
    boost::asio::awaitable<std::variant<http_answer, upstream_failure>>
    exchange(endpoint& ep, const outgoing_message& msg, const session_state& session,
             const call_context& ctx, std::chrono::steady_clock::time_point deadline,
             const upstream_session* origin);
    boost::asio::awaitable<std::variant<upstream_connection, upstream_failure>>
    connect(endpoint& ep);
    // The reading state of one answer: what remains of an event stream after its JSON-RPC
    // response is read to its end in the background (drain), so the connection is reused.
    struct answer_reader;
    template <class Stream>
    boost::asio::awaitable<void> round_trip(Stream& stream, const std::string& wire,
                                            const boost::json::value* want_id, http_answer& answer,
                                            bool& header_read, bool& reusable,
                                            boost::system::error_code& ec, const call_context& ctx,
                                            const upstream_session* origin, answer_reader& reader);
    boost::asio::awaitable<void> drain(endpoint& ep, upstream_connection conn,
                                       std::shared_ptr<answer_reader> reader);
    boost::asio::awaitable<std::optional<upstream_failure>> ensure_session(session_ptr s,
                                                                           const call_context& ctx);
    // timeouts.requestMs, or the caller's tighter budget.
    std::chrono::milliseconds budget_for(const call_context& ctx) const;
    boost::asio::awaitable<std::optional<upstream_failure>> handshake(session_ptr s,
                                                                      const call_context& ctx);
    session_ptr session_for(const call_context& ctx);
    void reset_session(upstream_session& s);
    // Reads the session's GET stream (reopened after a pause) until the session ends.
    // `opened` is cancelled once the first stream is open (or could not be).
    boost::asio::awaitable<void> listen(session_ptr s, std::uint64_t generation,
                                        std::shared_ptr<boost::asio::steady_timer> opened);
    boost::asio::awaitable<void> send_delete(endpoint& ep, session_state state,
                                             std::shared_ptr<const caller_credential> caller);
    // Sends `wire` on `conn` and follows its answer as a long-lived event stream while
    // `going()`: `on_open` once the header says 200 (and text/event-stream, if required), then
    // each message that has a method. False: the stream was not opened.
    boost::asio::awaitable<bool> follow_stream(upstream_connection& conn, const std::string& wire,
                                               bool require_event_stream,
                                               std::function<void()> on_open,
                                               std::function<bool()> going,
                                               std::function<void(upstream_message)> on_message);
    // The request as it goes on the wire: headers (session, version, 2026-07-28 mirrors, trace
    // context) and body.
    // A field that would carry a control character fails the request before it is sent.
    std::variant<std::string, upstream_failure>
    post_wire(const endpoint& ep, const outgoing_message& msg, const session_state& session,
              const call_context& ctx, std::string_view credential) const;
    // The credential header for the next request on `origin` ("" for none), or the failure of
    // its token endpoint (upstream_credential.hpp). Per-caller credentials come from the
    // session's caller; gate's own traffic (probes, the root session) has none.
    boost::asio::awaitable<std::variant<std::string, upstream_failure>>
    credential(const upstream_session* origin);
    // The same where no token endpoint is asked; nullopt where credential must be awaited.
    std::optional<std::variant<std::string, upstream_failure>>
    credential_now(const upstream_session* origin) const;
    bool per_caller_ = false; // passthrough or token-exchange

    // gate's own subscriptions/listen at a 2026-07-28 upstream (upstream_subscriptions.cpp):
    // list changes (for the cache and every client) and the held URIs. One stream; a new
    // filter opens a new stream, which closes the old one once acknowledged.
    void refresh_listen();
    boost::asio::awaitable<void> listen_modern(std::uint64_t version);
    protocol::subscription_filter listen_filter() const;
    std::map<std::string, std::size_t> held_uris_;
    std::uint64_t listen_version_ = 0;
    std::shared_ptr<upstream_connection> listen_conn_;
    std::shared_ptr<boost::asio::steady_timer> listen_pause_;
    void dispatch(const upstream_session& origin, upstream_message message);

    boost::asio::any_io_executor ex_;
    deadline_watch& watch_; // the io thread's: request deadlines without a timer each
    config::upstream cfg_;
    std::vector<std::unique_ptr<endpoint>> endpoints_;
    std::shared_ptr<guard_board> board_;
    std::shared_ptr<upstream_credential> credential_; // null: the upstream takes none
    guard_lease lease_;    // rate-limit slots granted by the actor, spent here
    ask_flight slot_ask_;  // one batch ask at a time
    int failures_out_ = 0; // failures reported and not yet counted by the actor
    std::shared_ptr<fleet_store> fleet_;
    std::shared_ptr<traffic_tap> tap_;
    // The request and its answer, to the recording.
    void overheard(const call_context& ctx, std::chrono::system_clock::time_point at,
                   std::string_view method, boost::json::object params,
                   const upstream_reply& reply);
    std::int64_t fleet_failures_ = 0; // the fleet's count after this instance's last failure
    // A failure counted by the fleet too: the fleet's count may open the circuit here, and an
    // opening (here or by the fleet's count) is published for the other instances.
    boost::asio::awaitable<void> share_failure();
    // This instance's view of the fleet's breaker reset by a success it saw.
    void share_success();
    std::size_t turn_ = 0; // whose turn it is among the replicas in rotation
    upstream_failure refusal(const upstream_guard::refused& r) const;
    void endpoint_failed(endpoint& ep, const std::string& why);
    bool probing_ = false; // the probe round is registered on the board
    boost::asio::awaitable<void> probe_round();
    // Why the endpoint failed a full MCP connect probe; nullopt when it passed.
    boost::asio::awaitable<std::optional<std::string>> probe_endpoint(endpoint& ep);
    session_ptr root_; // gate's own, declaring everything gate can bridge (the full profile)
    // The root sessions of the other client profiles, opened by their first list.
    std::array<session_ptr, protocol::profile_count> profile_roots_{};
    std::unordered_map<std::string, session_ptr> bridged_;
    std::unique_ptr<upstream_observer> observer_;
    bool closed_ = false;
    std::size_t in_flight_ = 0; // requests sent and not yet answered
    bool retiring_ = false;     // close once in_flight_ drops to zero
    // The upstream's era: fixed by `protocol`, or learnt by the first handshake for `auto`.
    bool modern_ = false;
    bool era_known_ = false;
    // Learns (auto) whether the upstream speaks 2026-07-28 with a server/discover probe; for
    // a 2026-07-28 upstream, its discover result is the root session's "initialize result".
    boost::asio::awaitable<std::optional<upstream_failure>>
    discover(endpoint& ep, const call_context& ctx, std::chrono::steady_clock::time_point deadline,
             boost::json::object& init_result, const upstream_session* origin);
    std::int64_t next_id_ = 1;
    std::shared_ptr<boost::asio::ssl::context> tls_; // created with the first https endpoint
};

} // namespace gate::transport
