// The downstream sessions: the table of those open here, their records in a fleet, their
// admission (shares, the table's bound) and their GET streams and DELETE, and what ends a
// session everywhere (every upstream's bridged session, held subscriptions, unanswered
// server requests, the bridge keeper, the fleet's store and every instance).
#pragma once

#include "gateway/mcp/bridge_line.hpp"
#include "gateway/mcp/fleet_sessions.hpp"
#include "gateway/mcp/list_changed_feed.hpp"
#include "gateway/mcp/listen_hub.hpp"
#include "gateway/mcp/server_request_table.hpp"
#include "gateway/mcp/session_admission.hpp"
#include "gateway/mcp/session_log_levels.hpp"
#include "gateway/mcp/session_streams.hpp"
#include "gateway/mcp/session_table.hpp"
#include "gateway/mcp/subscription_holds.hpp"
#include "gateway/operations/method_counts.hpp"
#include "gateway/upstream/live_federation.hpp"

#include <atomic>

namespace gate::gateway {

class downstream_sessions final : public fleet_sessions::gateway_side,
                                  public list_changed_feed::audience,
                                  public session_admission_services,
                                  public session_stream_services {
public:
    downstream_sessions(view_source& live, bridge_line& keeper, subscription_holds& holds,
                        listen_hub& listens, session_counts& counts)
        : live_(live), keeper_(keeper), holds_(holds), listens_(listens),
          opening_(table_, *this, counts), streams_(table_, *this, keeper) {}
    downstream_sessions(const downstream_sessions&) = delete;
    downstream_sessions& operator=(const downstream_sessions&) = delete;

    session_table& table() { return table_; }
    fleet_sessions& fleet() { return fleet_; }
    session_admission& opening() { return opening_; }
    session_streams& streams() { return streams_; }
    // Where an ended session's unanswered server requests are forgotten: the table of the
    // requests gate puts to clients, made after the sessions (it records through their fleet).
    void forget_requests_in(server_request_table& requests) { server_requests_ = &requests; }
    // Where an ended session's log level is forgotten (client_traffic's, made after these).
    void forget_levels_in(session_log_levels& levels) { levels_ = &levels; }
    // The gateway stops: GET streams close, the fleet stops following, the sweep ends.
    void stop() { stopping_ = true; }
    // Forgets, once a minute until the gateway stops, the sessions nobody used for an hour
    // with no open stream, so clients that never send DELETE cannot grow the table without
    // bound; each ends everywhere here.
    boost::asio::awaitable<void> sweep();

    // fleet_sessions::gateway_side: a session the fleet adopted, admitted like any other.
    bool admitted(const session_table::admission& a) override { return opening_.admitted(a); }
    void session_ended(std::string session) override;
    bool stopping() const override { return stopping_; }
    std::shared_ptr<const federation_view> current_view() const override {
        return live_.current_view();
    }
    // list_changed_feed::audience: every connected client hears a list's news.
    void broadcast(const boost::json::object& news) override;
    // A session ended: at every upstream, in the fleet's store and on every instance.
    void end_everywhere(const std::string& session) override;
    boost::asio::awaitable<bool> known_session(const std::string& session,
                                               const policy::caller_ref& caller,
                                               const boost::asio::ip::address& peer) override {
        return fleet_.known_session(session, caller, peer);
    }

private:
    view_source& live_;
    bridge_line& keeper_;
    subscription_holds& holds_;
    listen_hub& listens_;
    server_request_table* server_requests_ = nullptr;
    session_log_levels* levels_ = nullptr;
    std::atomic<bool> stopping_{false};
    session_table table_;
    fleet_sessions fleet_{table_, *this};
    session_admission opening_;
    session_streams streams_;
};

} // namespace gate::gateway
