// The gateway's client of one upstream MCP server over streamable HTTP: the upstream's
// identity and lifetime, and its roles, each a class with a few public methods:
//   guards()    upstream_guards: stage 6 at this upstream (admissions, tickets, the breaker)
//   sender()    request_sender: requests, deliveries and cancellations sent there
//   sessions()  session_keeper: the bridged sessions, a client's log level, passthrough's
//               initialize result
//   lists()     upstream_lists: whole lists fetched, and what the tools lists said
//   streams()   stream_follower: the subscriptions and task news gate holds, its listen
//   health()    upstream_health: probe rounds, endpoints in rotation, the bare handshake
// Beneath them the units the roles share, each with its own tests:
//   upstream_exchange    one HTTP exchange: pooled connections, JSON and SSE answers, timeouts
//   upstream_sessions    the root and bridged sessions: opened once, forgotten, ended
//   upstream_requests    what a request means: the retry after a 404, the 2026-07-28 input
//                        loop, lists page by page, deliveries, log levels
//   upstream_credentials the credential each request carries
//   upstream_recording   gate --record's tap
// The client answers its root sessions' requests itself; what it tells the gateway goes
// through one upstream_observer.
//
// Threading: an upstream_client lives on the single io thread (one io_context thread, see
// docs/architecture.md); its pools and session state are touched only from coroutines on it.
// A role lives exactly as long as its client: hold the client (or an aliasing pointer to the
// role), never a role's reference beyond the request whose view keeps the client.
#pragma once

#include "config/model.hpp"
#include "gateway/upstream/request_sender.hpp"
#include "gateway/upstream/session_keeper.hpp"
#include "gateway/upstream/stream_follower.hpp"
#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_credentials.hpp"
#include "gateway/upstream/upstream_exchange.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "gateway/upstream/upstream_health.hpp"
#include "gateway/upstream/upstream_lists.hpp"
#include "gateway/upstream/upstream_observer.hpp"
#include "gateway/upstream/upstream_recording.hpp"
#include "gateway/upstream/upstream_requests.hpp"
#include "gateway/upstream/upstream_sessions.hpp"
#include "gateway/upstream/upstream_siblings.hpp"
#include "gateway/upstream/upstream_state.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace gate::gateway {

class upstream_client : public std::enable_shared_from_this<upstream_client> {
    struct made {}; // only make() constructs one: the units need to know their owner
public:
    // `siblings`: the clients of the same entry on the other io threads, whose guard board,
    // tool facts and identity it shares (null: alone, with siblings of its own).
    static std::shared_ptr<upstream_client>
    make(boost::asio::any_io_executor ex, config::upstream cfg,
         std::shared_ptr<upstream_siblings> siblings = nullptr);
    upstream_client(made, boost::asio::any_io_executor ex,
                    std::shared_ptr<const config::upstream> cfg,
                    std::shared_ptr<actors::guard_board> board);
    upstream_client(const upstream_client&) = delete;
    upstream_client& operator=(const upstream_client&) = delete;
    ~upstream_client();

    // An admission through the upstream guards (upstream_guards.hpp).
    using guard_ticket = upstream_guards::ticket;
    // Where a bridged session (empty: the root session) lives upstream (upstream_sessions.hpp).
    using session_address = gateway::session_address;

    const config::upstream& config() const { return state_.cfg; }
    // What it shares with the clients of the same entry on the other io threads.
    const std::shared_ptr<upstream_siblings>& siblings() const { return state_.siblings; }
    // Whether the upstream takes each caller's own credential (passthrough, token-exchange):
    // no shared session or list serves two principals.
    bool per_caller() const { return state_.per_caller; }
    // Whether the upstream speaks 2026-07-28 (for `auto`, known after the first handshake).
    bool modern() const { return state_.modern; }
    // What the upstream's last handshake answered (empty: none yet): its serverInfo and
    // protocolVersion, for /api/federation.
    const boost::json::object& identity() const;
    // The same, held (null: none yet).
    const std::shared_ptr<const boost::json::object>& identity_held() const {
        return state_.identity;
    }
    // What a client of the same entry on another io thread heard its handshake answer
    // (upstream_siblings): this client's identity too, until its own handshake answers.
    void take_identity(std::shared_ptr<const boost::json::object> identity) {
        state_.identity = std::move(identity);
    }

    // Who hears session-wide upstream traffic: messages on a session's GET stream and gate's
    // listen, and on a call's stream when the call has no observer of its own. Set before the
    // first request; a reload that keeps the upstream sets it again.
    void observe(std::unique_ptr<upstream_observer> observer) { observer_ = std::move(observer); }
    // Where a user-account upstream finds each user's tokens (set when it is wired).
    void keep_accounts_in(user_tokens* accounts) { credentials_.keep_accounts_in(accounts); }

    // The roles. Every public operation that reaches the upstream is admitted: by the caller
    // (the pipeline's guards stage, passing the ticket on) or by the role itself.
    upstream_guards& guards() { return guards_; }
    gate::gateway::request_sender& sender() { return sender_; }
    gate::gateway::session_keeper& sessions() { return keeper_; }
    gate::gateway::upstream_lists& lists() { return lists_; }
    gate::gateway::stream_follower& streams() { return streams_; }
    gate::gateway::upstream_health& health() { return health_; }

    // Ends every session's GET stream, every bridged session, gate's listen and the probes
    // (shutdown, retirement).
    void close();
    // A reload retired this upstream: no new call reaches it (the new view has none), the calls
    // in flight finish, then it closes; at most `bound` after this (the drain).
    void retire(std::chrono::steady_clock::duration bound);
    // Closed (or retired and its last call ended): no new session opens.
    bool closed() const { return state_.closed; }

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
        void root_published(std::uint64_t generation) override {
            c_.streams_.root_published(generation);
        }

    private:
        upstream_client& c_;
    };
    // The last request at a retiring upstream ended: it closes.
    class drain_watch final : public gate::gateway::drain_hooks {
    public:
        explicit drain_watch(upstream_client& c) : c_(c) {}
        void drained() override { c_.close(); }

    private:
        upstream_client& c_;
    };

    // Declared in the order they are made: each unit is given those before it; the roles
    // come last, over the units.
    upstream_state state_;
    std::unique_ptr<upstream_observer> observer_;
    session_traffic heard_{*this};
    root_watch root_watch_{*this};
    drain_watch drain_watch_{*this};
    upstream_guards guards_;
    upstream_credentials credentials_;
    upstream_recording recording_;
    upstream_exchange exchange_;
    upstream_sessions sessions_;
    upstream_requests requests_;
    gate::gateway::request_sender sender_;
    gate::gateway::session_keeper keeper_;
    gate::gateway::upstream_lists lists_;
    gate::gateway::stream_follower streams_;
    gate::gateway::upstream_health health_;
};

} // namespace gate::gateway
