// One upstream's sessions as the rest of the gateway sees them: the bridged session of each
// client (where it lives, whether there is one, how many, ended or retired when idle), the
// level a client asked for there, and the root session's initialize result for passthrough.
// How a session opens, is forgotten and ends is upstream_sessions'; this is its narrow face.
#pragma once

#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_requests.hpp"
#include "gateway/upstream/upstream_sessions.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <variant>

namespace gate::gateway {

class session_keeper {
public:
    session_keeper(gateway::upstream_sessions& sessions, gateway::upstream_requests& requests)
        : sessions_(sessions), requests_(requests) {}
    session_keeper(const session_keeper&) = delete;
    session_keeper& operator=(const session_keeper&) = delete;

    // Whether the client of `bridge` has a bridged session here already (its capabilities
    // are only needed to create one).
    bool has_bridge(const std::string& bridge) const { return sessions_.has_bridge(bridge); }
    // Where a bridged session (empty: the root session) lives upstream.
    std::optional<gateway::session_address> address_of(const std::string& bridge) const {
        return sessions_.address_of(bridge);
    }
    std::size_t bridges() const { return sessions_.bridges(); }
    // Ends a bridged session: its GET stream is closed and the upstream told (DELETE).
    void end_bridge(const std::string& bridge) { sessions_.end_bridge(bridge); }
    // Ends a bridged session the bridge keeper found idle, unless a request started on it
    // since (the keeper's picture is up to one batch old). False: kept for that reason.
    bool retire_bridge(const std::string& bridge) { return sessions_.retire_bridge(bridge); }

    // The level a client asked for (`logging/setLevel`): sent to its bridged session now if
    // one is open, and at the handshake of one opened later. `capabilities` are the client's,
    // for a bridged session this creates.
    boost::asio::awaitable<void> set_log_level(const std::string& bridge, std::string level,
                                               const boost::json::object& capabilities) {
        return requests_.set_log_level(bridge, std::move(level), capabilities);
    }
    // The same kept for a bridged session not open yet (this client was made after the client
    // asked): sent at its handshake.
    void keep_log_level(const std::string& bridge, std::string level,
                        const boost::json::object& capabilities) {
        requests_.keep_log_level(bridge, std::move(level), capabilities);
    }
    // The upstream's initialize result (after the handshake), for passthrough mode.
    boost::asio::awaitable<std::variant<boost::json::object, gateway::upstream_failure>>
    initialize_result(const gateway::call_context& ctx) {
        return requests_.initialize_result(ctx);
    }

private:
    gateway::upstream_sessions& sessions_;
    gateway::upstream_requests& requests_;
};

} // namespace gate::gateway
