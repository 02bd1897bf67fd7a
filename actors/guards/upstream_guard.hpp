// Stage 6 of the pipeline for one upstream, as plain C++ with time passed in: its own rate limit
// (upstreams[].rateLimit), which the upstream's actor decides, and the answers of an
// admission, which its circuit breaker's actor gives too (actors/guards/breaker_actor).
//
// What goes through the guards: every exchange gate starts with the upstream (calls, list
// fetches, reads, subscribes, completions, task calls and probes, logging/setLevel, handshakes,
// warm-up, health pings, its own listen). Only the client's invocations count against the rate
// limit (`invocation`); gate's upkeep of the upstream (`upkeep`) is subject to the breaker alone.
#pragma once

#include "actors/guards/sliding_window.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <variant>

namespace gate::actors {

enum class guard_use : std::uint8_t { invocation, upkeep };

// How long past its upstream's request timeout a half-open probe (the breaker actor's) or a
// health round (the upstream actor's) may stay out before its report counts as lost.
inline constexpr std::chrono::seconds guard_grace{5};

class upstream_guard {
public:
    using time_point = std::chrono::steady_clock::time_point;

    struct refused {
        // given_up: the supervisor stopped restarting the upstream's actor (its crashes passed
        // the restart intensity); only the io thread's lease says it, from the board's view.
        enum class reason : std::uint8_t { circuit_open, rate_limited, given_up } why;
        std::chrono::milliseconds retry_after;
    };

    explicit upstream_guard(std::optional<std::int64_t> requests_per_minute);

    // An admission for the io thread, which answers most calls from the published view
    // (guard_lease) and asks for the rest: the half-open probe (the breaker actor), and for
    // invocations of a rate-limited upstream a batch of window slots (here). `tokens` is the
    // slots taken, the call's own included (0 when it needs none); the io thread spends the
    // others on later calls. A batch is what the io thread expects to spend before the window
    // slot ends (slot_demand), at most a sixteenth of the room left and at least 1, so a low
    // limit is exact and a high one costs about one ask per window slot.
    struct granted {
        bool probe = false; // the half-open probe (the breaker actor's): its outcome decides
        std::int64_t tokens = 0;
        time_point until{}; // the slots are spent before this (sliding_window::batch)
    };
    std::variant<granted, refused> grant(guard_use use, time_point now,
                                         const slot_demand& demand = {});

    bool limited() const { return window_.has_value(); }

private:
    std::optional<sliding_window> window_;
};

} // namespace gate::actors
