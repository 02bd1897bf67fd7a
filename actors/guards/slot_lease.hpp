// Window slots an actor granted the io thread in a batch, spent there without a message, as
// plain C++ with time passed in. The slots are spent before the end of the window slot that
// counted them (`until`, the batch's own deadline) or dropped, so a batch never carries calls
// into a later window than the one that counted them; what is dropped is allowance lost,
// never allowance added. A batch is asked for only when the lease is empty (one ask at a
// time: transport/io/ask_flight.hpp), so a grant replaces what is left rather than adding to it.
// The lease measures how fast its batch was spent, which the next ask carries (slot_demand).
#pragma once

#include "actors/guards/slot_demand.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>

namespace gate::actors {

class slot_lease {
public:
    using time_point = std::chrono::steady_clock::time_point;

    // Spends one slot; false when none is left (ask the actor for a batch).
    bool take(time_point now) {
        if (now >= until_ || tokens_ <= 0)
            return false;
        --tokens_;
        return true;
    }
    // The actor granted `tokens` slots at `now`, the asking call's own included, to be spent
    // before `until`.
    void grant(std::int64_t tokens, time_point until, time_point now) {
        granted_ = tokens > 0 ? tokens : 0;
        tokens_ = tokens > 1 ? tokens - 1 : 0;
        until_ = until;
        granted_at_ = now;
    }
    std::int64_t tokens(time_point now) const { return now < until_ ? tokens_ : 0; }

    // What the next ask asks for: the rate at which the last batch was spent (over the time it
    // was spendable, a millisecond at least), and room to grow past it.
    slot_demand demand(time_point now) const {
        if (granted_ <= 0)
            return {};
        auto spent = granted_ - tokens_;
        auto elapsed = std::max<std::chrono::nanoseconds>(std::min(now, until_) - granted_at_,
                                                          std::chrono::milliseconds(1));
        auto per_second = static_cast<std::int64_t>(static_cast<double>(spent) * 1e9 /
                                                    static_cast<double>(elapsed.count()));
        auto most = granted_ < std::numeric_limits<std::int64_t>::max() / slot_demand::growth
                        ? granted_ * slot_demand::growth
                        : std::numeric_limits<std::int64_t>::max();
        return {std::max<std::int64_t>(per_second, 1), std::max(slot_demand::first, most)};
    }

private:
    std::int64_t tokens_ = 0;
    std::int64_t granted_ = 0;
    time_point until_{};
    time_point granted_at_{};
};

} // namespace gate::actors
