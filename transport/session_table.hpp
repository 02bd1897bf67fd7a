// Downstream MCP sessions (`Mcp-Session-Id`) and the GET streams open on each. Lives on the
// io thread: a session is transport state (it owns open streams), not a routing decision.
#pragma once

#include "actors/principal.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <chrono>
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
    std::string owner; // the principal that opened it (principal_key); empty: anonymous
    std::shared_ptr<const principal> who; // that principal as verified then (null: anonymous)
};

class session_table {
public:
    using time_point = std::chrono::steady_clock::time_point;

    explicit session_table(std::size_t max_sessions = 10000) : max_sessions_(max_sessions) {}

    // A new session with a 128-bit random id (hex); nullopt at the ceiling.
    std::optional<std::string> open(std::string protocol_version, time_point now,
                                    boost::json::object capabilities = {}, std::string owner = {},
                                    std::shared_ptr<const principal> who = nullptr);
    // A session another instance of the fleet opened, under its id (transport/fleet_sessions);
    // false at the ceiling. An id already held here is kept as it is.
    bool adopt(const std::string& id, std::string protocol_version, time_point now,
               boost::json::object capabilities, std::string owner,
               std::shared_ptr<const principal> who);
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
    // Ends sessions unused for `idle` that have no open stream; returns their ids.
    std::vector<std::string> expire_idle(time_point now, std::chrono::steady_clock::duration idle);
    enum class attach_result { attached, unknown_session, too_many_streams };
    // Registers an open GET stream (at most max_streams_per_session live ones per session).
    attach_result attach_stream(const std::string& id,
                                std::weak_ptr<boost::asio::steady_timer> stream);
    static constexpr std::size_t max_streams_per_session = 8;
    // Queues a server-to-client message for every session with an open stream and wakes it.
    void broadcast(const std::string& message);
    // Queues a message for one session's GET stream (kept until a stream opens, at most 256,
    // oldest dropped first); false when the session is unknown.
    bool deliver(const std::string& id, const std::string& message);
    // Takes the queued messages of a session (empty when none or unknown).
    std::vector<std::string> take_outbox(const std::string& id);
    // Ends the session and wakes its streams so they close; false when unknown.
    bool close(const std::string& id);
    // Ends every session; returns their ids.
    std::vector<std::string> close_all();
    std::size_t size() const;

private:
    std::size_t max_sessions_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, downstream_session> sessions_;
};

} // namespace gate::transport
