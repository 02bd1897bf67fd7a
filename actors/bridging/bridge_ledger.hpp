// The bridge keeper's index over the bridged sessions, as plain C++: which bridged session a
// client's call in flight went to (so its cancellation and its end reach that session's
// actor), and who subscribed to what (so `resources/updated` reaches exactly the clients that
// asked for it). Each bridged session keeps its own bookkeeping (bridged_session, in its own
// actor); this only routes. The sockets and sessions themselves live on the io thread, and so
// do the upstreams' pending requests to clients (server_request_table: the sampling round trip
// does not wait on an actor).
#pragma once

#include <boost/describe/class.hpp>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace gate::actors {

// Upstreams are named by their configured id, not by their position in the snapshot: a reload
// may reorder or remove upstreams while the keeper still holds their sessions.

// One (downstream session, upstream) pair whose upstream session should end.
struct retired_bridge {
    std::string session;
    std::string upstream;
    friend bool operator==(const retired_bridge&, const retired_bridge&) = default;
};

class bridge_ledger {
public:
    // A client call is in flight on (session, upstream). False when the client's id is in
    // flight at another upstream already (ids are unique per session while in flight).
    bool call_started(const std::string& session, const std::string& client_id,
                      const std::string& upstream);
    // The upstream the call went to, now forgotten; nullopt when none is known.
    std::optional<std::string> call_ended(const std::string& session, const std::string& client_id);
    std::optional<std::string> call_upstream(const std::string& session,
                                             const std::string& client_id) const;

    // True when the subscription is new (or, unsubscribing, was there).
    bool subscribe(const std::string& session, const std::string& upstream, const std::string& uri);
    bool unsubscribe(const std::string& session, const std::string& upstream,
                     const std::string& uri);
    // Who receives `resources/updated` for `uri` from `upstream`. An update that arrived on one
    // client's bridged session (`origin`) is that client's alone; one that arrived on the
    // shared root session goes to every subscriber. Sorted, without repeats.
    std::vector<std::string> subscribers(const std::string& upstream, const std::string& uri,
                                         const std::optional<std::string>& origin) const;

    // The downstream session ended, or a reload retired the upstream: its calls and
    // subscriptions are forgotten.
    void end_session(const std::string& session);
    void forget_upstream(const std::string& upstream);

    std::size_t calls_in_flight() const { return calls_.size(); }

private:
    std::map<std::pair<std::string, std::string>, std::string> calls_; // (session, id) -> up
    std::set<std::tuple<std::string, std::string, std::string>> subscriptions_; // (up, uri, s)
};

// Described for the actor messages that carry it (actors/message_inspection.hpp).
BOOST_DESCRIBE_STRUCT(retired_bridge, (), (session, upstream))

} // namespace gate::actors
