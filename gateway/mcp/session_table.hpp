// Downstream MCP sessions (`Mcp-Session-Id`) and the GET streams open on each. Lives on the
// io thread: a session is transport state (it owns open streams), not a routing decision.
#pragma once

#include "actors/policy/principal.hpp"
#include "gateway/mcp/session_shares.hpp"

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

namespace gate::transport {

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
};

// A request being answered on a session, for as long as this lives (session_table::call_on):
// the session is not idle meanwhile. It holds the session's count, not the table, so a
// coroutine frame destroyed after the gateway (with its io_context) touches nothing freed; a
// session ended meanwhile keeps its count to itself.
class session_call {
public:
    session_call() = default;
    explicit session_call(std::shared_ptr<std::size_t> calls) : calls_(std::move(calls)) {
        if (calls_)
            ++*calls_;
    }
    session_call(session_call&& other) noexcept : calls_(std::move(other.calls_)) {}
    session_call& operator=(session_call&& other) noexcept {
        if (this != &other) {
            end();
            calls_ = std::move(other.calls_);
        }
        return *this;
    }
    ~session_call() { end(); }

private:
    void end() {
        if (calls_)
            --*calls_;
        calls_.reset();
    }
    std::shared_ptr<std::size_t> calls_;
};

// Whose share of the table a new session counts against (session_shares): its principal, or
// for an anonymous caller its client address, an IPv6 one by its /64 (what one subscriber is
// given). Behind a proxy every anonymous caller is the proxy's address (docs/sessions.md).
std::string share_holder(const caller_ref& who, const boost::asio::ip::address& peer);

class session_table {
public:
    using time_point = std::chrono::steady_clock::time_point;

    explicit session_table(session_limits limits = {}) : limits_(limits) {}
    // server.sessions of a reload: the next new session is admitted by them. Sessions over a
    // lowered bound stay; each new one then ends an idle one (session_shares).
    void set_limits(session_limits limits);

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
    // (gateway/fleet/fleet_sessions.cpp), admitted like a new one. An id already held here is kept
    // as it is.
    admission adopt(const std::string& id, opening o, time_point now);
    // A request on the session is being answered: it is not idle (expiry, eviction) while the
    // returned mark lives. Marks nothing for an unknown session.
    session_call call_on(const std::string& id);
    // Sessions used at or after `since` (the fleet's records of them are kept alive).
    std::vector<std::string> used_since(time_point since) const;
    // Whether the session has a GET stream open here.
    bool listening(const std::string& id) const;
    // Whether the session exists and was opened by `owner`: another principal's session is
    // answered like an unknown one, so its existence is not disclosed either.
    bool owned_by(const std::string& id, std::string_view owner) const;
    // The principal that opened the session, as verified then (null: anonymous or unknown).
    std::shared_ptr<const principal> principal_of(const std::string& id) const;
    // The client's declared capabilities (empty when unknown).
    boost::json::object capabilities(const std::string& id) const;
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
    bool deliver(const std::string& id, const std::string& message);
    // Takes the queued messages of a session (empty when none or unknown).
    std::vector<std::string> take_outbox(const std::string& id);
    // Ends the session and wakes its streams so they close; false when unknown.
    bool close(const std::string& id);
    // Ends every session; returns their ids.
    std::vector<std::string> close_all();
    std::size_t size() const;

    std::size_t held_by(const std::string& holder) const;

private:
    // Under the lock: admits and inserts a session under `id`.
    admission admit(const std::string& id, opening o, time_point now);
    // Under the lock: ends a session (its streams woken).
    void erase(std::unordered_map<std::string, downstream_session>::iterator it);
    // Under the lock: appends to a session's outbox within its bounds.
    void queue(downstream_session& s, const std::string& message);

    session_limits limits_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, downstream_session> sessions_;
    session_shares shares_;
    std::uint64_t dropped_ = 0;
};

} // namespace gate::transport
