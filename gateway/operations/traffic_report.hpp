// The body of GET /api/traffic (docs/operations.md, Introspection and the console): each
// upstream's last 15 minutes from the traffic history, its breaker and replica changes, and
// the viewer's own latest refusals. Times are the wall clock's, converted from the steady
// clock the history keeps with one reading of each.
#pragma once

#include "actors/guards/guard_changes.hpp"
#include "gateway/operations/traffic_history.hpp"

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace gate::gateway {

struct traffic_facts {
    struct upstream {
        std::string id;
        std::vector<std::string> urls; // upstreams[].urls: an endpoint change names its URL
        std::vector<actors::guard_change> changes; // guard_board::changes, oldest first
    };
    const traffic_history& history;
    std::vector<upstream> upstreams; // as the running configuration orders them
    std::string viewer;              // principal_key of the viewer ("" anonymous)
    traffic_history::time_point now;
    std::chrono::system_clock::time_point wall;
    // The instance whose traffic this is (each instance of a fleet keeps its own history): its
    // host name and process id.
    std::string host{};
    std::int64_t pid = 0;
    // Whether gate's own series (requests no single upstream answered) is shown: it counts
    // every tenant's, so not to a viewer whose tenant does not see every upstream.
    bool gate_series = true;
};

boost::json::object traffic_report(const traffic_facts& f);

// One series as /api/traffic shows it (per bucket: requests, by outcome, p50 and p99).
boost::json::object series_json(const traffic_history::window& w,
                                std::chrono::system_clock::time_point wall,
                                traffic_history::time_point now);

} // namespace gate::gateway
