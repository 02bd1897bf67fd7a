// What the io thread expects to spend of a rate window, carried with each ask for a batch of
// slots: its rate over its last batch, and how far a batch may grow past that batch. A batch
// sized by demand makes the asks per second of a busy lease about constant (one per window slot,
// plus the few of a rising rate) where a fixed batch made them grow with the traffic, each one
// an actor's wake-up with calls waiting behind it; and at low traffic a batch no longer counts
// many more calls than are made. Plain C++.
#pragma once

#include <boost/describe/class.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>

namespace gate::actors {

struct slot_demand {
    // A batch before any rate was measured (and the least a batch may grow to).
    static constexpr std::int64_t first = 64;
    // A batch is at most this many times the previous one: a short burst measured as a high
    // rate does not take a large part of the window at once.
    static constexpr std::int64_t growth = 4;

    std::int64_t per_second = 0; // 0: not measured yet
    std::int64_t most = first;

    // The batch to take when `left` remains of the window slot that would count it: what the
    // rate spends in that time and a quarter more (a rate that is rising), the asking call's
    // own slot included; `most` at most, 1 at least.
    std::int64_t wanted(std::chrono::nanoseconds left) const {
        if (per_second <= 0)
            return most;
        auto seconds = std::chrono::duration<double>(left).count();
        auto expected =
            std::ceil(static_cast<double>(per_second) * (seconds > 0 ? seconds : 0) * 1.25);
        if (expected >= static_cast<double>(most))
            return most;
        auto n = 1 + static_cast<std::int64_t>(expected);
        return n < most ? n : most;
    }
};

// Described for the actor messages that carry it (actors/message_inspection.hpp).
BOOST_DESCRIBE_STRUCT(slot_demand, (), (per_second, most))

} // namespace gate::actors
