#include "actors/guard_lease.hpp"

#include <algorithm>

namespace gate {

guard_lease::decision guard_lease::decide(const guard_view& view, guard_use use, time_point now) {
    using state = circuit_breaker::state;
    if (view.breaker == state::half_open && view.probe_out)
        return upstream_guard::refused{upstream_guard::refused::reason::circuit_open,
                                       std::chrono::milliseconds(1)};
    if (view.breaker != state::closed) {
        if (view.breaker == state::open && now < view.reopens_at)
            return upstream_guard::refused{
                upstream_guard::refused::reason::circuit_open,
                std::max(std::chrono::milliseconds(1),
                         std::chrono::ceil<std::chrono::milliseconds>(view.reopens_at - now))};
        return ask_actor{}; // the probe may go: only the actor hands it out
    }
    if (use == guard_use::upkeep || !view.limited)
        return admit_here{};
    if (now < until_ && tokens_ > 0) {
        --tokens_;
        return admit_here{};
    }
    return ask_actor{};
}

void guard_lease::grant(std::int64_t tokens, time_point now) {
    if (tokens <= 1)
        return;
    if (now >= until_)
        tokens_ = 0; // the last batch's slots are spent or stale
    tokens_ += tokens - 1;
    until_ = now + life;
}

} // namespace gate
