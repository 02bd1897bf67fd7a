// The gateway's client of one upstream MCP server over streamable HTTP, composed of one unit
// per concern, each with its own tests:
//   upstream_guards      stage 6 at this upstream: admissions, tickets, the fleet's breaker
//   upstream_exchange    one HTTP exchange: pooled connections, JSON and SSE answers, timeouts
//   upstream_sessions    the root and bridged sessions: opened once, forgotten, ended
//   upstream_requests    what a request means: the retry after a 404, the 2026-07-28 input
//                        loop, lists page by page, deliveries, log levels
//   upstream_credentials the credential each request carries
//   upstream_recording   gate --record's tap
// This class is what the rest of the gateway uses: it wires the units, counts the calls in
// flight (a retired upstream drains), answers its root sessions' requests itself, and holds
// the subscriptions gate keeps there (upstream_subscriptions.cpp) and the health probes
// (upstream_probes.cpp). What it tells the gateway goes through one upstream_observer.
//
// Threading: an upstream_client lives on the single io thread (one io_context thread, see
// docs/architecture.md); its pools and session state are touched only from coroutines on it.
#pragma once

#include "actors/guards/guard_board.hpp"
#include "actors/guards/upstream_guard.hpp"
#include "config/model.hpp"
#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_credentials.hpp"
#include "gateway/upstream/upstream_exchange.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "gateway/upstream/upstream_observer.hpp"
#include "gateway/upstream/upstream_recording.hpp"
#include "gateway/upstream/upstream_requests.hpp"
#include "gateway/upstream/upstream_sessions.hpp"
#include "gateway/upstream/upstream_state.hpp"
#include "protocol/subscription_filter.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::transport {

class fleet_store;
class traffic_tap;

// What an upstream answered a handshake sent without any credential: `gate check`'s try of
// an upstream that takes each caller's credential, which it has none of.
struct bare_handshake {
    int status = 0;
    std::string challenge; // with a 401 or 403: its WWW-Authenticate ("" when none came)
    std::optional<boost::json::object> result; // the handshake's result, when it answered one
};

class upstream_client : public std::enable_shared_from_this<upstream_client> {
    struct made {}; // only make() constructs one: the units need to know their owner
public:
    static std::shared_ptr<upstream_client> make(boost::asio::any_io_executor ex,
                                                 config::upstream cfg);
    upstream_client(made, boost::asio::any_io_executor ex, config::upstream cfg);
    upstream_client(const upstream_client&) = delete;
    upstream_client& operator=(const upstream_client&) = delete;
    ~upstream_client();

    const config::upstream& config() const { return state_.cfg; }

    // Who hears session-wide upstream traffic: messages on a session's GET stream, and on a
    // call's stream when the call has no observer of its own. Set before the first request.
    void observe(std::unique_ptr<upstream_observer> observer) { observer_ = std::move(observer); }

    // The upstream's guards: its actor decides and publishes them here (actors/guards/guard_board).
    const std::shared_ptr<guard_board>& board() const { return guards_.board(); }

    // An admission through the upstream guards (upstream_guards.hpp).
    using guard_ticket = upstream_guards::ticket;
    // Stage 6 for this upstream: an admission, or the refusal as a failure of kind
    // circuit_open or rate_limited. Every public operation that reaches the upstream is
    // admitted: by the caller (the pipeline's guards stage, passing the ticket on) or itself.
    boost::asio::awaitable<std::variant<guard_ticket, upstream_failure>> admit(guard_use use) {
        return guards_.admit(use);
    }
    // The same where the lease decides without the actor (nearly always); nullopt where
    // admit must ask (a new batch, the half-open probe).
    std::optional<std::variant<guard_ticket, upstream_failure>> admit_now(guard_use use) {
        return guards_.admit_now(use);
    }
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
                                         std::string source = {}) {
        return requests_.deliver(bridge, std::move(message), std::move(source));
    }
    // A client cancelled the call gate sent under `upstream_id` on `bridge` (empty: the root
    // session): a 2026-07-28 upstream's exchange for it is closed; an earlier upstream gets a
    // notifications/cancelled (with `reason`, when the client gave one). False: nothing sent
    // or closed (the call is over).
    boost::asio::awaitable<bool> cancel(const std::string& bridge,
                                        const boost::json::value& upstream_id,
                                        const boost::json::value* reason);
    // Where a bridged session (empty: the root session) lives upstream (upstream_sessions.hpp).
    using session_address = transport::session_address;
    std::optional<session_address> address_of(const std::string& bridge) const {
        return sessions_.address_of(bridge);
    }
    // Sends a response on the upstream session at `to` (one this instance may not hold).
    boost::asio::awaitable<bool> deliver_to(const session_address& to, boost::json::object message,
                                            std::string source = {}) {
        return requests_.deliver_to(to, std::move(message), std::move(source));
    }

    // The level a client asked for (`logging/setLevel`): sent to its bridged session now if
    // one is open, and at the handshake of one opened later.
    // `capabilities` are the client's, for a bridged session this creates.
    boost::asio::awaitable<void> set_log_level(const std::string& bridge, std::string level,
                                               const boost::json::object& capabilities) {
        return requests_.set_log_level(bridge, std::move(level), capabilities);
    }

    // Ends a bridged session: its GET stream is closed and the upstream told (DELETE).
    void end_bridge(const std::string& bridge) { sessions_.end_bridge(bridge); }
    // Ends a bridged session the bridge keeper found idle, unless a request started on it
    // since (the keeper's picture is up to one batch old). False: kept for that reason.
    bool retire_bridge(const std::string& bridge) { return sessions_.retire_bridge(bridge); }
    std::size_t bridges() const { return sessions_.bridges(); }
    // Whether the client of `bridge` has a bridged session here already (its capabilities
    // are only needed to create one).
    bool has_bridge(const std::string& bridge) const { return sessions_.has_bridge(bridge); }

    // Ends every session's GET stream and every bridged session (shutdown, retirement).
    void close();
    // A reload retired this upstream: no new call reaches it (the new view has none), the calls
    // in flight finish, then it closes; at most `bound` after this (the drain).
    void retire(std::chrono::steady_clock::duration bound);
    std::size_t calls_in_flight() const { return in_flight_; }
    // With healthCheck.intervalMs: probes every endpoint on that interval until close()
    // (upstream_probes.cpp). Idempotent.
    void start_health_checks();
    // The handshake a health probe sends an upstream that takes each caller's credential
    // (with none) at endpoint `endpoint`, within `budget`: what it answered (the session it
    // opened ended at once), or why nothing did (refused, unresolvable, TLS, a timeout).
    boost::asio::awaitable<std::variant<bare_handshake, upstream_failure>>
    handshake_without_credential(std::chrono::milliseconds budget, std::size_t endpoint = 0);
    // The fleet's shared store (gateway/fleet/fleet_store): this upstream's rate window and
    // breaker become the fleet's. Set once, before the first call.
    void share_through(std::shared_ptr<fleet_store> fleet) {
        guards_.share_through(std::move(fleet));
    }
    // gate --record: every request sent here and its answer are heard by the tap. Set once,
    // before the first call; without one nothing is recorded and nothing is copied.
    void record_through(std::shared_ptr<traffic_tap> tap) { recording_.through(std::move(tap)); }

    // Whether the upstream takes each caller's own credential (passthrough, token-exchange):
    // no shared session or list serves two principals.
    bool per_caller() const { return state_.per_caller; }

    // The x-mcp-header annotations of `tool` (the upstream's own name) as gate last listed
    // them (nullptr: none known).
    const protocol::param_headers* param_headers_of(const std::string& tool) const {
        return state_.tool_headers.find(tool);
    }
    // Why `tool` (the upstream's own name) was left out of gate's lists, its x-mcp-header
    // definition being invalid (nullptr: it was not).
    const std::string* dropped_tool(const std::string& tool) const {
        return state_.tool_headers.dropped(tool);
    }
    // Whether `tool` (the upstream's own name) is one only an App's view may call, as gate
    // last listed it.
    bool app_only(const std::string& tool) const { return state_.tools.app_only(tool); }
    // The behaviour hints of `tool` (the upstream's own name) as gate last listed it; nullopt
    // for a tool no list of gate's showed. `tools_listed`: whether gate has listed any.
    std::optional<protocol::tool_hints> tool_hints(const std::string& tool) const {
        return state_.tools.hints(tool);
    }
    bool tools_listed() const { return state_.tools.listed(); }
    // What gate's lists last said of the upstream's tools.
    const listed_tools& tools() const { return state_.tools; }
    // Whether a call that needs this upstream's tools listed (pinned definitions, a policy on
    // annotations) lists them first: not listed yet, and not tried within the last 10 s (an
    // upstream whose list fails is not asked for it on every call).
    bool tools_list_wanted(std::chrono::steady_clock::time_point now) const {
        return !state_.tools.listed() && now - state_.tools_list_tried >= std::chrono::seconds(10);
    }
    void tools_list_tried(std::chrono::steady_clock::time_point now) {
        state_.tools_list_tried = now;
    }
    // A reload: tools withheld under the old pins are judged again at the next list.
    void judge_tools_again() {
        state_.tools.judge_again();
        state_.tools_list_tried = {};
    }
    // Pinned definitions: judged at each tools list gate fetches (set before the first, and
    // again at each reload once the watch has the new document).
    void watch_definitions(std::shared_ptr<definition_watch> watch) {
        state_.blocks_changed = watch && watch->mode_of(state_.cfg) == pin_mode::block;
        state_.definitions = std::move(watch);
    }
    // Why `tool` (its own name) is withheld under a `block` pin, or nullptr; whether the pin
    // blocks (a call of a tool gate never listed is then listed first).
    const std::string* withheld_tool(const std::string& tool) const {
        return state_.tools.withheld(tool);
    }
    bool blocks_changed_tools() const { return state_.blocks_changed; }
    // The tool (its own name) `is_it` accepts, and its annotations, among those known.
    const std::pair<const std::string, protocol::param_headers>*
    param_headers_where(const std::function<bool(std::string_view)>& is_it) const {
        return state_.tool_headers.find_if(is_it);
    }
    // Whether the upstream speaks 2026-07-28 (for `auto`, known after the first handshake).
    bool modern() const { return state_.modern; }
    // Resource subscriptions gate holds on its own session for any number of clients,
    // counted: the first hold subscribes (resources/subscribe on the root session, or the URI
    // joins gate's subscriptions/listen at a 2026-07-28 upstream), the last release
    // unsubscribes. Why not, when the upstream refused (its JSON-RPC error in `answer`) or
    // cannot be reached.
    boost::asio::awaitable<std::optional<upstream_failure>>
    hold_subscription(const std::string& uri);
    void release_subscription(const std::string& uri);
    // The tasks extension's notifications/tasks for `task_id`, counted the same way: the task
    // joins gate's subscriptions/listen at this 2026-07-28 upstream. Why not, when the
    // upstream does not speak 2026-07-28, does not offer the extension or cannot be reached.
    boost::asio::awaitable<std::optional<upstream_failure>>
    hold_task_news(const std::string& task_id);
    void release_task_news(const std::string& task_id);

    // What the upstream's last handshake answered (empty: none yet): its serverInfo and
    // protocolVersion, for /api/federation.
    const boost::json::object& identity() const { return state_.identity; }
    // The upstream's initialize result (after the handshake), for passthrough mode.
    boost::asio::awaitable<std::variant<boost::json::object, upstream_failure>>
    initialize_result(const call_context& ctx) {
        return requests_.initialize_result(ctx);
    }

    // Fetches one complete list, following the upstream's own nextCursor pages. With
    // `sources`, each item's text as the upstream wrote it (empty where not known), in order,
    // for writing the list on as it was written (protocol/json_preserve).
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch_list(std::string_view method, std::string_view key, const call_context& ctx,
               std::vector<std::string>* sources = nullptr);
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch_list(std::string_view method, std::string_view key, const call_context& ctx,
               guard_ticket admitted, std::vector<std::string>* sources = nullptr) {
        return requests_.fetch_list(method, key, ctx, std::move(admitted), sources);
    }

    // Forgets the root session (the next request re-initializes).
    void reset_session() { sessions_.reset_session(*sessions_.root()); }

    // Stage 6, the upstream guards, as /metrics and /health show them.
    circuit_breaker::state breaker_state() const { return guards_.breaker_state(); }
    struct endpoint_health {
        std::string url;
        bool in_rotation;
    };
    std::vector<endpoint_health> endpoints() const;

private:
    // The upstream's own messages outside any call's observer: gate answers the requests its
    // root sessions get (it has no client to ask), the rest go to the gateway's observer.
    class session_traffic final : public upstream_observer {
    public:
        explicit session_traffic(upstream_client& c) : c_(c) {}
        void message(const std::string& bridge, upstream_message m) override;

    private:
        upstream_client& c_;
    };
    // A new root session: the subscriptions gate holds are made on it.
    class root_watch final : public session_hooks {
    public:
        explicit root_watch(upstream_client& c) : c_(c) {}
        void root_published(std::uint64_t generation) override;

    private:
        upstream_client& c_;
    };

    // gate's own subscriptions/listen at a 2026-07-28 upstream (upstream_subscriptions.cpp):
    // list changes (for the cache and every client) and the held URIs. One stream; a new
    // filter opens a new stream, which closes the old one once acknowledged.
    void refresh_listen();
    boost::asio::awaitable<void> listen_modern(std::uint64_t version);
    protocol::subscription_filter listen_filter() const;
    // After the upstream restarted, the subscriptions gate held on its old root session.
    void resubscribe();
    std::map<std::string, std::size_t> held_uris_;
    std::map<std::string, std::size_t> held_tasks_;
    std::uint64_t listen_version_ = 0;
    std::shared_ptr<upstream_connection> listen_conn_;
    std::shared_ptr<boost::asio::steady_timer> listen_pause_;

    bool probing_ = false; // the probe round is registered on the board
    boost::asio::awaitable<void> probe_round();
    // Why the endpoint failed a full MCP connect probe; nullopt when it passed.
    boost::asio::awaitable<std::optional<std::string>> probe_endpoint(upstream_endpoint& ep);
    // A probe's handshake at `ep` within `budget`: the answer, or why none.
    boost::asio::awaitable<std::variant<http_answer, upstream_failure>>
    probe_handshake(upstream_endpoint& ep, std::chrono::milliseconds budget);

    std::size_t in_flight_ = 0; // requests sent and not yet answered
    bool retiring_ = false;     // close once in_flight_ drops to zero

    // Declared in the order they are made: each unit is given those before it.
    upstream_state state_;
    std::unique_ptr<upstream_observer> observer_;
    session_traffic heard_{*this};
    root_watch root_watch_{*this};
    upstream_guards guards_;
    upstream_credentials credentials_;
    upstream_recording recording_;
    upstream_exchange exchange_;
    upstream_sessions sessions_;
    upstream_requests requests_;
};

} // namespace gate::transport
