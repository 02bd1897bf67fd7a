// Stage 6 of the pipeline for one upstream, as plain C++ with time passed in: its circuit
// breaker and its own rate limit (upstreams[].rateLimit), decided together so a refused call
// takes neither a window slot nor the half-open probe.
//
// What goes through it: every exchange gate starts with the upstream (calls, list fetches,
// reads, subscribes, completions, task calls and probes, logging/setLevel, handshakes, warm-up,
// health pings, its own listen). Only the client's invocations count against the rate limit
// (`invocation`); gate's upkeep of the upstream (`upkeep`) is subject to the breaker alone.
#pragma once

#include "actors/guards/circuit_breaker.hpp"
#include "actors/guards/sliding_window.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <variant>

namespace gate {

enum class guard_use : std::uint8_t { invocation, upkeep };

class upstream_guard {
public:
    using time_point = std::chrono::steady_clock::time_point;

    struct admitted {
        bool probe = false; // the half-open probe: its outcome decides the circuit
    };
    struct refused {
        // given_up: the supervisor stopped restarting the upstream's actor (its crashes passed
        // the restart intensity); only the io thread's lease says it, from the board's view.
        enum class reason : std::uint8_t { circuit_open, rate_limited, given_up } why;
        std::chrono::milliseconds retry_after;
    };

    upstream_guard(std::int64_t failure_threshold, std::chrono::milliseconds half_open_after,
                   std::optional<std::int64_t> requests_per_minute);

    std::variant<admitted, refused> admit(guard_use use, time_point now);

    // An admission for the io thread, which answers most calls from the published view
    // (guard_lease) and asks for the rest: the half-open probe, and for invocations of a
    // rate-limited upstream a batch of window slots. `tokens` is the slots taken, the call's
    // own included (0 when it needs none); the io thread spends the others on later calls. A batch
    // is what the io thread expects to spend before the window slot ends (slot_demand), at most a
    // sixteenth of the room left and at least 1, so a low limit is exact and a high one costs
    // about one ask per window slot.
    struct granted {
        bool probe = false;
        std::int64_t tokens = 0;
        time_point until{}; // the slots are spent before this (sliding_window::batch)
    };
    std::variant<granted, refused> grant(guard_use use, time_point now,
                                         const slot_demand& demand = {});

    bool limited() const { return window_.has_value(); }
    const circuit_breaker& breaker() const { return breaker_; }
    // True when the circuit changed state.
    bool record(bool success, const admitted& a, time_point now);
    void abandon(const admitted& a);
    // The fleet opened the circuit for `rest` (circuit_breaker::open_for).
    bool open_for(std::chrono::milliseconds rest, time_point now) {
        return breaker_.open_for(rest, now);
    }

    circuit_breaker::state breaker_state(time_point now) const { return breaker_.current(now); }
    std::int64_t consecutive_failures() const { return breaker_.consecutive_failures(); }

private:
    std::variant<granted, refused> decide(guard_use use, time_point now, const slot_demand* batch);

    circuit_breaker breaker_;
    std::optional<sliding_window> window_;
};

} // namespace gate
