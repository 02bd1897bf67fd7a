// The bookkeeping of bridged upstream sessions, as plain C++ with time passed in.
//
// A bridged session is the upstream session one downstream client uses at one upstream. The
// ledger knows when each was last used and what is in flight on it: the client's calls (so a
// `notifications/cancelled` reaches the right upstream request) and the client's resource
// subscriptions (so `resources/updated` reaches
// exactly the clients that asked for it). The sockets and sessions themselves live on the io
// thread, and so do the upstreams' pending requests to clients (server_request_table: the
// sampling round trip does not wait on an actor); the ledger only decides.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace gate {

// Upstreams are named by their configured id, not by their position in the snapshot: a reload
// may reorder or remove upstreams while the ledger still holds their sessions.

// One (downstream session, upstream) pair whose upstream session should end.
struct retired_bridge {
    std::string session;
    std::string upstream;
    friend bool operator==(const retired_bridge&, const retired_bridge&) = default;
};

// Where a client's call went: cancelling it means telling this upstream about this id.
struct call_target {
    std::string upstream;
    boost::json::value upstream_id;
};

class bridge_ledger {
public:
    using time_point = std::chrono::steady_clock::time_point;
    using duration = std::chrono::steady_clock::duration;

    // The bridged session (session, upstream) was used at `now` (created on first use).
    void touch(const std::string& session, const std::string& upstream, time_point now);

    // A client call is in flight on (session, upstream) under the upstream-side id. The key
    // is the client's id in canonical JSON text (ids are unique per session while in flight).
    void call_started(const std::string& session, const std::string& client_id,
                      const std::string& upstream, boost::json::value upstream_id, time_point now);
    void call_ended(const std::string& session, const std::string& client_id, time_point now);
    std::optional<call_target> cancel_target(const std::string& session,
                                             const std::string& client_id) const;

    void subscribe(const std::string& session, const std::string& upstream, const std::string& uri);
    void unsubscribe(const std::string& session, const std::string& upstream,
                     const std::string& uri);
    // Who receives `resources/updated` for `uri` from `upstream`. An update that arrived on one
    // client's bridged session (`origin`) is that client's alone; one that arrived on the
    // shared root session goes to every subscriber. Sorted, without repeats.
    std::vector<std::string> subscribers(const std::string& upstream, const std::string& uri,
                                         const std::optional<std::string>& origin) const;

    // The client opened (true) or closed (false) one of its GET streams. A listening client
    // is connected, not idle: its bridges stay while any of its streams is open.
    void listening(const std::string& session, bool open, time_point now);

    // Bridged sessions unused for `idle` with nothing in flight, no subscription and no
    // listening client: forgotten and returned.
    std::vector<retired_bridge> expire_idle(time_point now, duration idle);
    // A reload retired (or replaced) the upstream: its sessions are gone, and so is
    // everything that was pending on them.
    void forget_upstream(const std::string& upstream);
    // The downstream session ended: everything it had is forgotten, its bridges returned.
    std::vector<retired_bridge> end_session(const std::string& session);

    std::size_t bridges() const { return bridges_.size(); }
    std::size_t calls_in_flight() const { return calls_.size(); }

private:
    using bridge_key = std::pair<std::string, std::string>; // (session, upstream)
    struct bridge_use {
        time_point last_used{};
        std::size_t in_flight = 0;
        std::size_t subscriptions = 0;
    };
    struct call {
        std::string upstream;
        boost::json::value upstream_id;
    };
    std::map<bridge_key, bridge_use> bridges_;
    std::map<std::pair<std::string, std::string>, call> calls_; // (session, client id)
    std::set<std::tuple<std::string, std::string, std::string>> subscriptions_; // (up, uri, s)
    std::map<std::string, std::size_t> listening_; // session -> open GET streams
};

} // namespace gate
