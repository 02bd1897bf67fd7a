// Downstream MCP sessions (`Mcp-Session-Id`) and the GET streams open on each. Lives on the
// io thread: a session is transport state (it owns open streams), not a routing decision.
#pragma once

#include "config/model.hpp"
#include "gateway/mcp/client_capabilities.hpp"
#include "gateway/mcp/session_census.hpp"
#include "gateway/mcp/session_delivery.hpp"
#include "gateway/mcp/session_shares.hpp"
#include "gateway/mcp/tool_selections.hpp"
#include "gateway/pipeline/session_call.hpp"
#include "gateway/upstream/live_federation.hpp"
#include "policy/principal.hpp"
#include "protocol/shard_key.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gate::gateway {

struct downstream_session {
    std::string protocol_version;
    boost::json::object capabilities; // as the client declared them at initialize
    std::chrono::steady_clock::time_point last_used;
    std::vector<std::weak_ptr<boost::asio::steady_timer>> streams; // woken on news and DELETE
    std::deque<std::string> outbox; // JSON-RPC messages for the GET stream, oldest first
    std::size_t outbox_bytes = 0;
    std::string owner; // the principal that opened it (principal_key); empty: anonymous
    std::shared_ptr<const principal> who; // that principal as verified then (null: anonymous)
    // Requests on it being answered now (session_call): it is not idle while one runs.
    std::shared_ptr<std::size_t> calls = std::make_shared<std::size_t>(0);
    std::vector<std::string> tool_selection; // gate_select_tools' (tool_selections)
};

// Whose share of the table a new session counts against (session_shares): its principal, or
// for an anonymous caller its client address, an IPv6 one by its /64 (what one subscriber is
// given). Behind a proxy every anonymous caller is the proxy's address (docs/sessions.md).
std::string share_holder(const policy::caller_ref& who, const boost::asio::ip::address& peer);

// The limits of the sessions table, from the server section.
session_limits session_limits_of(const config::server& s);

class session_table final : public client_capabilities,
                            public session_delivery,
                            public view_adopter,
                            public tool_selections {
public:
    using time_point = std::chrono::steady_clock::time_point;

    explicit session_table(session_limits limits = {}) : limits_(limits) {}
    // server.sessions of a reload: the next new session is admitted by them. Sessions over a
    // lowered bound stay; each new one then ends an idle one (session_shares).
    // `threads`: which io thread keeps the sessions of this table (nullopt: as before). Each id
    // names it (protocol/shard_key), so a request of the session that reaches another thread
    // moves there; and the count every thread's table admits against, so server.sessions
    // bounds the process, not each thread (docs/io-threads.md).
    struct among_threads {
        protocol::shard_place place;
        std::shared_ptr<session_census> census; // null: this table's sessions are all there are
    };
    void set_limits(session_limits limits, std::optional<among_threads> threads = std::nullopt);

    // What a new session is made of.
    struct opening {
        std::string protocol_version;
        boost::json::object capabilities; // as the client declared them at initialize
        std::string owner;                // principal_key; empty: anonymous
        std::shared_ptr<const principal> who;
        std::string holder; // share_holder: whose share it counts against
    };
    // A session ended to make room for another.
    struct eviction {
        std::string id, holder;
        std::chrono::steady_clock::duration idle{};
        share_reason reason = share_reason::table_full;
    };
    struct admission {
        std::optional<std::string> id;   // the session; nullopt: refused for `refused`
        std::optional<eviction> evicted; // ended (and its streams woken) to make room
        share_reason refused = share_reason::table_full;
    };
    // A new session with a 128-bit random id (hex), admitted by session_shares.
    admission open(opening o, time_point now);
    // A session another instance of the fleet opened, under its id
    // (gateway/mcp/fleet_sessions.cpp), admitted like a new one. An id already held here is kept
    // as it is.
    admission adopt(const std::string& id, opening o, time_point now);
    // A request on the session is being answered: it is not idle (expiry, eviction) while the
    // returned mark lives. Marks nothing for an unknown session.
    session_call call_on(const std::string& id);
    // Sessions used at or after `since` (the fleet's records of them are kept alive).
    std::vector<std::string> used_since(time_point since) const;
    // Whether the session exists and was opened by `owner` (another principal's session is
    // answered like an unknown one, so its existence is not disclosed either). With `use`, an
    // owned one is also marked used then and held in use while the returned call lives: the
    // session step's look, one lookup where owned_by, touch and call_on took three.
    enum class owner_found { owner, another, none };
    struct owned_look {
        owner_found found = owner_found::none;
        session_call call; // held when found by its owner with `use`
    };
    owned_look look_up(const std::string& id, std::string_view owner,
                       std::optional<time_point> use = std::nullopt);
    // The principal that opened the session, as verified then (null: anonymous or unknown).
    policy::caller_ref principal_of(const std::string& id) const override;
    // The client's declared capabilities (empty when unknown).
    boost::json::object capabilities(const std::string& id) override;
    bool contains(const std::string& id) const;
    // Marks the session used at `now`; its negotiated version, or nullopt when unknown.
    std::optional<std::string> touch(const std::string& id, time_point now);
    // Ends sessions unused for `idle` that have no open stream and no request being answered;
    // returns their ids.
    std::vector<std::string> expire_idle(time_point now, std::chrono::steady_clock::duration idle);
    enum class attach_result { attached, unknown_session, too_many_streams };
    // Registers an open GET stream (at most max_streams_per_session live ones per session).
    attach_result attach_stream(const std::string& id,
                                std::weak_ptr<boost::asio::steady_timer> stream);
    static constexpr std::size_t max_streams_per_session = 8;
    static constexpr std::size_t max_outbox_messages = 256;
    static constexpr std::size_t max_outbox_bytes = 4 * 1024 * 1024;
    // Messages dropped from full outboxes so far (gate_session_messages_dropped_total).
    std::uint64_t dropped_messages() const;
    // Queues a server-to-client message for every session with an open stream and wakes it.
    void broadcast(const std::string& message);
    // Queues a message for one session's GET stream (kept until a stream opens, at most
    // max_outbox_messages and max_outbox_bytes, oldest dropped first: a client that stops
    // reading, or an upstream that floods, holds a bounded amount of the gateway); false when
    // the session is unknown.
    bool deliver(const std::string& id, const std::string& message) override;
    // Takes the queued messages of a session (empty when none or unknown).
    std::vector<std::string> take_outbox(const std::string& id);
    // Ends the session and wakes its streams so they close; false when unknown.
    bool close(const std::string& id);
    // Ends every session; returns their ids.
    std::vector<std::string> close_all();
    std::size_t size() const;

    std::size_t held_by(const std::string& holder) const;

private:
    // The limits of server.sessions in a reload's view (set_limits), as a view_adopter.
    void adopt(const federation_view& next) override;
    // session_delivery: what the upstream traffic asks (contains, by its interface's name).
    bool session_open(const std::string& id) override { return contains(id); }
    // tool_selections: a session's selection, kept with it (list_methods asks through it).
    std::vector<std::string> selected_tools(const std::string& id) override;
    bool select_tools(const std::string& id, std::vector<std::string> names) override;
    // Under the lock: admits and inserts a session under `id`.
    admission admit(const std::string& id, opening o, time_point now);
    // Under the lock, with a census: the process's bounds first; only when one is full does
    // this table pick a session of its own to end (session_shares, within what it holds).
    session_shares::verdict counted_verdict(const std::string& holder, time_point now,
                                            const session_shares::idle_test& idle);
    // Under the lock: ends a session (its streams woken); `counted`: its place in the census
    // is given up (not when an eviction handed it to the new session).
    void erase(std::unordered_map<std::string, downstream_session>::iterator it,
               bool counted = true);
    // Under the lock: a session gone from the shares, and (`counted`) from the census.
    void uncount(const std::string& id, bool counted = true);
    // Under the lock: appends to a session's outbox within its bounds.
    void queue(downstream_session& s, const std::string& message);

    session_limits limits_;
    protocol::shard_place place_;
    std::shared_ptr<session_census> census_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, downstream_session> sessions_;
    session_shares shares_;
    std::uint64_t dropped_ = 0;
};

// Whether the session exists and was opened by `owner` (session_table::look_up).
inline bool owned_by(session_table& table, const std::string& id, std::string_view owner) {
    return table.look_up(id, owner).found == session_table::owner_found::owner;
}

} // namespace gate::gateway
