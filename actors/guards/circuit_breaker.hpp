// An upstream's circuit breaker (spec: "Circuit breaker"), as plain C++ with time passed in.
//
//   closed (0)    failureThreshold consecutive failures  -> open
//   open (2)      halfOpenAfterMs elapsed                -> half-open, one probe admitted
//   half-open (1) the probe succeeds                     -> closed
//                 the probe fails                        -> open, for another halfOpenAfterMs
//                 the probe is abandoned (no outcome)    -> half-open, the next call probes
//
// A circuit may also be opened from outside for a given rest (open_for: a fleet's shared
// breaker, gateway/fleet/fleet_store).
//
// While open, and while a half-open probe is out, every other call is refused (-32041). An
// outcome of a call admitted before the circuit opened changes nothing: only the probe decides
// a half-open circuit, and a success that raced the opening does not undo it.
#pragma once

#include <chrono>
#include <cstdint>

namespace gate::actors {

class circuit_breaker {
public:
    using time_point = std::chrono::steady_clock::time_point;
    enum class state : std::uint8_t { closed = 0, half_open = 1, open = 2 };
    enum class admission : std::uint8_t { call, probe, refused };

    circuit_breaker(std::int64_t failure_threshold, std::chrono::milliseconds half_open_after);

    // Whether a call may go to the upstream now; `probe`: it is the half-open probe, whose
    // outcome must be reported with probe = true (or abandoned).
    admission admit(time_point now);
    // Whether admit() would let a call through now, without taking the probe.
    bool admits(time_point now) const;
    // The outcome of an admitted call. True when the state changed.
    bool record(bool success, bool probe, time_point now);
    // A probe that ended without an outcome (its caller went away).
    void abandon_probe();
    // The fleet opened this circuit (another instance counted the failures): a closed
    // circuit opens for `rest`, then probes as usual. True when it was closed.
    bool open_for(std::chrono::milliseconds rest, time_point now);

    // The state as the metric shows it: an open circuit whose rest is over is half-open.
    state current(time_point now) const;
    std::int64_t consecutive_failures() const { return failures_; }
    // The state as last decided (open stays open until its probe is taken), and whether the
    // half-open probe is out: what the io thread's view needs to decide alone.
    state recorded() const { return state_; }
    bool probe_out() const { return probe_out_; }
    // When an open circuit admits its probe.
    time_point reopens_at() const { return opened_at_ + half_open_after_; }

private:
    std::int64_t threshold_;
    std::chrono::milliseconds half_open_after_;
    state state_ = state::closed;
    std::int64_t failures_ = 0;
    time_point opened_at_{};
    bool probe_out_ = false;
};

} // namespace gate::actors
