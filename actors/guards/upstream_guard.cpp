#include "actors/guards/upstream_guard.hpp"

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
    auto g = decide(use, now, nullptr);
    if (auto* r = std::get_if<refused>(&g))
        return *r;
    return admitted{std::get<granted>(g).probe};
}

std::variant<upstream_guard::granted, upstream_guard::refused>
upstream_guard::grant(guard_use use, time_point now, const slot_demand& demand) {
    return decide(use, now, &demand);
}

std::variant<upstream_guard::granted, upstream_guard::refused>
upstream_guard::decide(guard_use use, time_point now, const slot_demand* batch) {
    // The circuit first: a call it refuses must not take a slot of the window.
    if (!breaker_.admits(now))
        return refused{
            refused::reason::circuit_open,
            std::max(std::chrono::milliseconds(1),
                     std::chrono::ceil<std::chrono::milliseconds>(breaker_.reopens_at() - now))};
    sliding_window::batch b;
    if (use == guard_use::invocation && window_) {
        b = batch ? window_->take_batch(now, *batch) : window_->take_up_to(1, now);
        if (b.taken == 0)
            return refused{refused::reason::rate_limited, b.wait};
    }
    return granted{breaker_.admit(now) == circuit_breaker::admission::probe, b.taken, b.until};
}

bool upstream_guard::record(bool success, const admitted& a, time_point now) {
    return breaker_.record(success, a.probe, now);
}

void upstream_guard::abandon(const admitted& a) {
    if (a.probe)
        breaker_.abandon_probe();
}

} // namespace gate
