// One bridged session's own bookkeeping, as plain C++ with time passed in: the upstream
// session one downstream client uses at one upstream. It knows when it was last used and what
// keeps it open: the client's calls in flight on it (with their upstream-side ids, so a
// `notifications/cancelled` names the right request), the client's resource subscriptions
// there, and whether the client listens on a GET stream. Idle for the idle limit with none of
// those, it may end (spec rule 4: swept after 5 minutes).
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace gate::actors {

class bridged_session {
public:
    using time_point = std::chrono::steady_clock::time_point;
    using duration = std::chrono::steady_clock::duration;

    void touch(time_point now);
    // A call in flight under the upstream-side id; the key is the client's id as canonical
    // JSON text (unique per session while in flight). A retry replaces the id.
    void call_started(const std::string& client_id, boost::json::value upstream_id, time_point now);
    void call_ended(const std::string& client_id, time_point now);
    std::optional<boost::json::value> upstream_id(const std::string& client_id) const;
    void subscribed(bool on);
    // The client opened (true) or closed (false) one of its GET streams; idle time counts
    // from the moment the last one closed.
    void listening(bool open, time_point now);

    // When it may end: the last use plus `idle`, or nullopt while something keeps it open.
    std::optional<time_point> idle_at(duration idle) const;
    std::size_t calls_in_flight() const { return calls_.size(); }

private:
    time_point last_used_{};
    std::map<std::string, boost::json::value> calls_;
    std::size_t subscriptions_ = 0;
    std::size_t streams_ = 0;
};

} // namespace gate::actors
