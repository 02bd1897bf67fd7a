// A rate limit over a sliding window (spec: "sliding window"), as plain C++ with time passed
// in. The window is kept as 60 slots of a sixtieth each (one second of a per-minute limit):
// constant memory whatever the limit, exact to one slot, and the retry hint is when enough
// of the oldest slots leave the window to make room.
#pragma once

#include "actors/guards/slot_demand.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>

namespace gate::actors {

// A retry hint in whole seconds, rounded up, at least 1 (Retry-After, and the hint in -32040).
inline std::int64_t whole_seconds(std::chrono::milliseconds wait) {
    return wait.count() < 1000 ? 1 : (wait.count() + 999) / 1000;
}

class sliding_window {
public:
    using time_point = std::chrono::steady_clock::time_point;
    static constexpr std::size_t slots = 60;

    sliding_window(std::int64_t limit, std::chrono::milliseconds window = std::chrono::minutes(1));

    // Takes one request; nullopt when it fits, else how long until one would.
    std::optional<std::chrono::milliseconds> take(time_point now);
    // Takes up to `n` requests at once (a batch handed to the io thread); `taken` is 0 when
    // the window is full, and `wait` then says how long until one would fit.
    struct batch {
        std::int64_t taken = 0;
        std::chrono::milliseconds wait{0};
        // The end of the slot that counted them: slots spent later would be counted in a
        // window they were not.
        time_point until{};
    };
    batch take_up_to(std::int64_t n, time_point now);
    // A batch for the io thread (slot_lease): what it expects to spend before this window slot
    // ends (slot_demand), at most a sixteenth of the room left and at least 1, so a low limit is
    // exact and a high one costs about one ask per window slot.
    batch take_batch(time_point now, const slot_demand& demand = {});
    // Requests counted in the window ending now.
    std::int64_t in_window(time_point now);
    std::int64_t limit() const { return limit_; }

private:
    void advance(time_point now);
    // The slot an index (in slots since the clock's epoch) lands in; an index before the
    // epoch (a window looked back from near a virtual clock's start) too.
    static std::size_t slot_of(std::int64_t index) {
        auto n = static_cast<std::int64_t>(slots);
        return static_cast<std::size_t>(((index % n) + n) % n);
    }
    std::chrono::milliseconds wait_for_room(time_point now) const;

    std::int64_t limit_;
    std::chrono::nanoseconds slot_;
    std::array<std::int64_t, slots> counts_{};
    std::int64_t total_ = 0;
    std::int64_t head_ = -1; // index (in slots since the epoch) of the newest slot counted
};

} // namespace gate::actors
