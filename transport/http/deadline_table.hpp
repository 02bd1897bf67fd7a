// Deadlines of many operations, kept as plain C++ with time passed in: each armed entry holds
// its deadline and what to do when it passes; the owner calls expire(now) now and then. Arming
// and disarming cost a slot in a vector, not a timer: a proxied call's socket operations each
// had a timer of their own (Beast's stream expiry), armed and cancelled per read and per write,
// which cost more than the rest of the call's bookkeeping (docs/benchmarks.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace gate::transport {

class deadline_table {
public:
    using clock = std::chrono::steady_clock;
    using time_point = clock::time_point;

    // An armed entry; a handle whose entry fired or was disarmed refers to nothing (the slot's
    // generation moved on), so a late disarm cannot touch a slot's next tenant.
    struct handle {
        std::uint32_t slot = 0;
        std::uint32_t generation = 0;
    };

    handle arm(time_point deadline, std::function<void()> on_expiry);
    // True when the entry was still armed (it will not fire).
    bool disarm(handle h);
    // Fires, in deadline order, every armed entry whose deadline is not after `now`; each is
    // disarmed before it fires (so it may arm or disarm others). Returns how many fired.
    std::size_t expire(time_point now);
    // The earliest armed deadline, if any is armed.
    std::optional<time_point> next() const;
    std::size_t armed() const { return armed_; }

private:
    struct slot {
        time_point deadline;
        std::function<void()> on_expiry;
        std::uint32_t generation = 0;
        bool armed = false;
    };
    void release(std::uint32_t i);

    std::vector<slot> slots_;
    std::vector<std::uint32_t> free_;
    std::size_t armed_ = 0;
};

} // namespace gate::transport
