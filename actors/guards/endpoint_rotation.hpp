// Which replica of an upstream a new session goes to (spec: rule 7 and "Replica endpoint"),
// as plain C++ with time passed in. New sessions go round-robin over the endpoints in
// rotation. A connect failure or a failed active probe ejects an endpoint; with passive
// health it returns after its rest (the breaker's halfOpenAfterMs), with active health only
// when a probe succeeds, at once. When every endpoint is ejected the rotation serves them all
// anyway: a connect attempt is the only way to learn that one is back, and refusing outright
// would turn a brief outage of every replica into a longer one.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

namespace gate::actors {

// The order in which a new session tries the endpoints: those in rotation, starting with
// `turn` (advanced past the first), then (as a last resort) the ejected ones.
std::vector<std::size_t> rotation_order(const std::vector<bool>& in_rotation, std::size_t& turn);

class endpoint_rotation {
public:
    using time_point = std::chrono::steady_clock::time_point;

    // `active`: health is probed (healthCheck.intervalMs), so no rest restores an endpoint.
    endpoint_rotation(std::size_t endpoints, std::chrono::milliseconds rest, bool active);

    struct plan {
        // The order in which a new session tries the endpoints: those in rotation, starting
        // with the next in turn, then (as a last resort) the ejected ones.
        std::vector<std::size_t> order;
        std::vector<std::size_t> restored; // back in rotation because their rest is over
    };
    plan next(time_point now);
    // Endpoints whose rest is over (passive health) are put back; the ones restored.
    std::vector<std::size_t> restore_rested(time_point now);
    // When the next ejected endpoint's rest is over; nullopt when none is resting.
    std::optional<time_point> next_rest_over() const;
    // True when the endpoint changed state (log and metric the transition once).
    bool eject(std::size_t endpoint, time_point now);
    bool restore(std::size_t endpoint);
    bool in_rotation(std::size_t endpoint, time_point now) const;
    std::size_t size() const { return ejected_at_.size(); }

private:
    std::chrono::milliseconds rest_;
    bool active_;
    std::vector<bool> ejected_;
    std::vector<time_point> ejected_at_;
    std::size_t next_ = 0;
};

} // namespace gate::actors
