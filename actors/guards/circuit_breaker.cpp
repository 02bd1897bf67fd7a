#include "actors/guards/circuit_breaker.hpp"

namespace gate::actors {

circuit_breaker::circuit_breaker(std::int64_t failure_threshold,
                                 std::chrono::milliseconds half_open_after)
    : threshold_(failure_threshold < 1 ? 1 : failure_threshold), half_open_after_(half_open_after) {
}

circuit_breaker::admission circuit_breaker::admit(time_point now) {
    switch (current(now)) {
    case state::closed:
        return admission::call;
    case state::open:
        return admission::refused;
    case state::half_open:
        if (probe_out_)
            return admission::refused;
        state_ = state::half_open;
        probe_out_ = true;
        return admission::probe;
    }
    return admission::refused;
}

bool circuit_breaker::record(bool success, bool probe, time_point now) {
    if (probe) {
        probe_out_ = false;
        if (success) {
            state_ = state::closed;
            failures_ = 0;
        } else {
            state_ = state::open;
            opened_at_ = now;
        }
        return true;
    }
    if (state_ != state::closed)
        return false;
    if (success) {
        failures_ = 0;
        return false;
    }
    if (++failures_ < threshold_)
        return false;
    state_ = state::open;
    opened_at_ = now;
    return true;
}

bool circuit_breaker::admits(time_point now) const {
    auto s = current(now);
    return s == state::closed || (s == state::half_open && !probe_out_);
}

bool circuit_breaker::open_for(std::chrono::milliseconds rest, time_point now) {
    if (state_ != state::closed)
        return false;
    state_ = state::open;
    opened_at_ = now + rest - half_open_after_;
    return true;
}

void circuit_breaker::abandon_probe() {
    probe_out_ = false;
}

circuit_breaker::state circuit_breaker::current(time_point now) const {
    if (state_ == state::open && now >= reopens_at())
        return state::half_open;
    return state_;
}

} // namespace gate::actors
