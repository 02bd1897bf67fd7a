// Window slots an actor granted the io thread in a batch, spent there without a message, as
// plain C++ with time passed in. A slot is spent within one second (a slot of the sliding
// window) or dropped, so a batch never carries calls into a later window than the one that
// counted them; what is dropped is allowance lost, never allowance added.
#pragma once

#include <chrono>
#include <cstdint>

namespace gate {

class slot_lease {
public:
    using time_point = std::chrono::steady_clock::time_point;
    static constexpr std::chrono::seconds life{1};

    // Spends one slot; false when none is left (ask the actor for a batch).
    bool take(time_point now) {
        if (now >= until_ || tokens_ <= 0)
            return false;
        --tokens_;
        return true;
    }
    // The actor granted `tokens` slots at `now`, the asking call's own included.
    void grant(std::int64_t tokens, time_point now) {
        if (tokens <= 1)
            return;
        if (now >= until_)
            tokens_ = 0; // the last batch's slots are spent or stale
        tokens_ += tokens - 1;
        until_ = now + life;
    }
    std::int64_t tokens(time_point now) const { return now < until_ ? tokens_ : 0; }

private:
    std::int64_t tokens_ = 0;
    time_point until_{};
};

} // namespace gate
