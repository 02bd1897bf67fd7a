// What an upstream's guards publish for the io thread, immutable: its circuit as the breaker
// actor last decided it, its rate limit and replicas as its own actor did (guard_board puts
// the two parts together). The io thread admits most calls from it without a message
// (guard_lease) and asks the actor only for what the view cannot decide alone.
#pragma once

#include "actors/guards/circuit_breaker.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

namespace gate::actors {

struct guard_view {
    using time_point = std::chrono::steady_clock::time_point;

    circuit_breaker::state breaker = circuit_breaker::state::closed; // as recorded
    bool probe_out = false;        // half-open: the probe is out, every other call is refused
    time_point reopens_at{};       // open: when the probe may go
    std::int64_t failures = 0;     // consecutive failures counted (a success resets them)
    bool limited = false;          // invocations need window slots (upstreams[].rateLimit)
    std::vector<bool> in_rotation; // per endpoint, in the order of upstreams[].urls
    // The supervisor gave up on the upstream's actor (guard_board::given_up_view): every
    // exchange is refused until a reload gives the actor a fresh start.
    bool given_up = false;

    // As /metrics shows it: an open circuit whose rest is over is half-open; an upstream given
    // up on shows open.
    circuit_breaker::state shown(time_point now) const {
        if (given_up)
            return circuit_breaker::state::open;
        if (breaker == circuit_breaker::state::open && now >= reopens_at)
            return circuit_breaker::state::half_open;
        return breaker;
    }
    bool operator==(const guard_view&) const = default;
};

} // namespace gate::actors
