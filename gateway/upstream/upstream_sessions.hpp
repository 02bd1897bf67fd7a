// The upstream sessions of one client: gate's root session (declaring everything gate can
// bridge), the root sessions of the other client profiles, and one bridged session per
// downstream client (mirroring its capabilities) or per caller at a per-caller upstream. Each
// is found or made for a call, opened by one caller at a time while the others wait (single
// flight, session_lifecycle), over the replicas in turn (initialize, or server/discover at a
// 2026-07-28 upstream), with its GET stream open before the first call goes out; forgotten
// after a 404, ended (the upstream told), and closed with the client.
#pragma once

#include "gateway/upstream/session_lifecycle.hpp"
#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_exchange.hpp"
#include "gateway/upstream/upstream_state.hpp"
#include "protocol/client_profile.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gate::gateway {

class upstream_guards;

// One upstream session: the root one, or a client's bridged one.
struct upstream_session : session_origin {
    // What it declares: a profile's, shared by every client's root sessions, or the client's.
    std::shared_ptr<const boost::json::object> capabilities = protocol::shared_capabilities_of(0);
    std::optional<std::string> log_level;
    session_state state;
    upstream_endpoint* ep = nullptr;
    session_lifecycle life; // ready, handshaking, ended, generation, in use
    boost::json::object init_result;
    std::shared_ptr<boost::asio::steady_timer> handshake_done; // cancelled when it ends
    std::shared_ptr<transport::upstream_connection> listening; // the open GET stream
    std::shared_ptr<boost::asio::steady_timer> relisten;       // the pause between streams
};
using session_ptr = std::shared_ptr<upstream_session>;

// Where a bridged session lives upstream, so another instance of a fleet can answer a
// request the upstream sent on it (gateway/mcp/fleet_sessions.cpp).
struct session_address {
    std::string id;
    std::string protocol_version;
    std::size_t endpoint = 0;
};

// What the sessions tell the client that holds them (upstream_client implements it; tests
// fake it).
class session_hooks {
public:
    virtual ~session_hooks() = default;
    // gate's own root session was published (generation 1 the first time): the subscriptions
    // gate holds are made on it.
    virtual void root_published(std::uint64_t generation) = 0;
};

class upstream_sessions {
public:
    using clock = std::chrono::steady_clock;

    // `heard`: where the upstream's messages on a session's GET stream go (the client's).
    upstream_sessions(upstream_state& state, upstream_exchange& exchange, upstream_guards& guards,
                      upstream_observer& heard, session_hooks& hooks);
    upstream_sessions(const upstream_sessions&) = delete;
    upstream_sessions& operator=(const upstream_sessions&) = delete;

    // gate's own root session, declaring everything gate can bridge (the full profile).
    const session_ptr& root() const { return root_; }
    // The session a call goes on (made on first use; not opened): ctx.bridge's bridged
    // session, or the root session of ctx.profile. Null where it must not go: a caller's
    // credential on a shared session, or on another principal's bridged session.
    session_ptr session_for(const call_context& ctx);
    // The bridged session of `bridge`; null when there is none.
    session_ptr find(const std::string& bridge) const;
    // Opens `s` unless it is ready: this caller handshakes, or waits (within its own budget)
    // for the handshake under way. Why not, when it cannot be opened. `avoid`: a replica that
    // just refused a connection, tried last (its ejection may not be in the rotation yet, and
    // a 2026-07-28 session opens without a word to its replica).
    boost::asio::awaitable<std::optional<upstream_failure>>
    ensure_session(session_ptr s, const call_context& ctx,
                   std::optional<std::size_t> avoid = std::nullopt);
    // Whether `s` is ready for a request as it is: ensure_session would answer at once. Asked
    // first, so the common request makes no coroutine frame for it.
    bool ready_now(const upstream_session& s) const;
    // Forgets `s` (the next request opens it again).
    void reset_session(upstream_session& s);
    // Whether `s` is open on a replica out of rotation while another replica is in rotation:
    // its next request opens it again on one that is (ensure_session).
    bool stranded(const upstream_session& s) const;

    // Ends a bridged session: its GET stream is closed and the upstream told (DELETE).
    void end_bridge(const std::string& bridge);
    // Ends a bridged session the bridge keeper found idle, unless a request is using it.
    // False: kept for that reason.
    bool retire_bridge(const std::string& bridge);
    std::size_t bridges() const { return bridged_.size(); }
    bool has_bridge(const std::string& bridge) const { return bridged_.contains(bridge); }
    std::optional<session_address> address_of(const std::string& bridge) const;
    // Ends every session and its GET stream (the client closes).
    void close();

private:
    // One replica's try at opening a session: done (opened, or failed for good), on to the
    // next replica (this one could not be reached), or on to initialize (server/discover
    // found an `auto` upstream sessionful).
    struct attempt {
        enum class then : std::uint8_t { done, next_replica, initialize };
        then next = then::done;
        std::optional<upstream_failure> failure;
    };
    boost::asio::awaitable<std::optional<upstream_failure>>
    handshake(session_ptr s, const call_context& caller, std::optional<std::size_t> avoid);
    // 2026-07-28 has no handshake: the root session's discovery stands in for it (and, for
    // `auto`, decides the era); a bridged session is ready at once.
    boost::asio::awaitable<attempt> open_modern(const session_ptr& s, upstream_endpoint& ep,
                                                const call_context& ctx,
                                                clock::time_point deadline);
    // initialize and notifications/initialized; the session is published once both are
    // through.
    boost::asio::awaitable<attempt> initialize(const session_ptr& s, upstream_endpoint& ep,
                                               const call_context& ctx, clock::time_point deadline);
    // The new session in use: published, its log level sent, its GET stream open.
    boost::asio::awaitable<void> publish(const session_ptr& s, upstream_endpoint& ep,
                                         session_state next, boost::json::object result,
                                         const call_context& ctx, clock::time_point deadline);
    // Learns (auto) whether the upstream speaks 2026-07-28 with a server/discover probe; for
    // a 2026-07-28 upstream, its discover result is the root session's "initialize result".
    boost::asio::awaitable<std::optional<upstream_failure>>
    discover(upstream_endpoint& ep, const call_context& ctx, clock::time_point deadline,
             boost::json::object& init_result, const upstream_session* origin);
    // Reads the session's GET stream (reopened after a pause) until the session ends.
    // `sent` falls due once the first stream's request is written, `opened` once that stream
    // is open (each also when it could not be).
    boost::asio::awaitable<void> listen(session_ptr s, std::uint64_t generation,
                                        std::shared_ptr<boost::asio::steady_timer> opened,
                                        std::shared_ptr<boost::asio::steady_timer> sent);
    // The session's GET request, or why it cannot be sent.
    std::optional<std::string> listen_wire(const upstream_session& s,
                                           const std::string& credential);

    upstream_state& state_;
    upstream_exchange& exchange_;
    upstream_guards& guards_;
    upstream_observer& heard_;
    session_hooks& hooks_;
    std::size_t turn_ = 0; // whose turn it is among the replicas in rotation
    session_ptr root_;
    // The root sessions of the other client profiles, opened by their first list: a few at
    // most in practice, where an array of every profile cost 512 bytes per client per thread.
    std::vector<std::pair<protocol::client_profile, session_ptr>> profile_roots_;
    std::unordered_map<std::string, session_ptr> bridged_;
};

} // namespace gate::gateway
