// The io thread's side of an upstream's guards, as plain C++ with time passed in. It admits a
// call from the view its board shows when the view decides it (a closed circuit
// with no rate limit, or window slots left from a batch), refuses it when the view does (an
// open circuit resting, a half-open one whose probe is out), and otherwise says to ask an
// actor (the breaker actor for the half-open probe, the upstream's for a new batch of slots:
// slot_lease).
#pragma once

#include "actors/guards/guard_view.hpp"
#include "actors/guards/slot_lease.hpp"
#include "actors/guards/upstream_guard.hpp"

#include <chrono>
#include <cstdint>
#include <variant>

namespace gate::actors {

class guard_lease {
public:
    using time_point = std::chrono::steady_clock::time_point;

    struct admit_here {};
    struct ask_actor {};
    using decision = std::variant<admit_here, upstream_guard::refused, ask_actor>;

    // Spends a slot when it admits an invocation of a rate-limited upstream.
    decision decide(const guard_view& view, guard_use use, time_point now);
    // The actor granted `tokens` slots at `now`, the asking call's own included, to be spent
    // before `until`.
    void grant(std::int64_t tokens, time_point until, time_point now) {
        slots_.grant(tokens, until, now);
    }
    // A slot of the batches granted, for a call the view did not admit alone (the half-open
    // probe of a rate-limited upstream). False when none is left.
    bool take_slot(time_point now) { return slots_.take(now); }
    // What the next batch ask carries (slot_lease::demand).
    slot_demand demand(time_point now) const { return slots_.demand(now); }
    std::int64_t tokens(time_point now) const { return slots_.tokens(now); }

private:
    slot_lease slots_;
};

} // namespace gate::actors
