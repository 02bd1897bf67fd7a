// Window slots an actor granted the io thread in a batch, spent there without a message, as
// plain C++ with time passed in. The slots are spent before the end of the window slot that
// counted them (`until`, the batch's own deadline) or dropped, so a batch never carries calls
// into a later window than the one that counted them; what is dropped is allowance lost,
// never allowance added. A batch is asked for only when the lease is empty (one ask at a
// time: transport/ask_flight.hpp), so a grant replaces what is left rather than adding to it.
#pragma once

#include <chrono>
#include <cstdint>

namespace gate {

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
    // The actor granted `tokens` slots, the asking call's own included, to be spent before
    // `until`.
    void grant(std::int64_t tokens, time_point until) {
        tokens_ = tokens > 1 ? tokens - 1 : 0;
        until_ = until;
    }
    std::int64_t tokens(time_point now) const { return now < until_ ? tokens_ : 0; }

private:
    std::int64_t tokens_ = 0;
    time_point until_{};
};

} // namespace gate
