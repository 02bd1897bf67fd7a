#include "actors/upstream_guard.hpp"

#include <algorithm>

namespace gate {

upstream_guard::upstream_guard(std::int64_t failure_threshold,
                               std::chrono::milliseconds half_open_after,
                               std::optional<std::int64_t> requests_per_minute)
    : breaker_(failure_threshold, half_open_after) {
    if (requests_per_minute)
        window_.emplace(*requests_per_minute);
}

std::variant<upstream_guard::admitted, upstream_guard::refused>
upstream_guard::admit(guard_use use, time_point now) {
    // The circuit first: a call it refuses must not take a slot of the window.
    if (!breaker_.admits(now))
        return refused{
            refused::reason::circuit_open,
            std::max(std::chrono::milliseconds(1),
                     std::chrono::ceil<std::chrono::milliseconds>(breaker_.reopens_at() - now))};
    if (use == guard_use::invocation && window_)
        if (auto wait = window_->take(now))
            return refused{refused::reason::rate_limited, *wait};
    return admitted{breaker_.admit(now) == circuit_breaker::admission::probe};
}

bool upstream_guard::record(bool success, const admitted& a, time_point now) {
    return breaker_.record(success, a.probe, now);
}

void upstream_guard::abandon(const admitted& a) {
    if (a.probe)
        breaker_.abandon_probe();
}

} // namespace gate
