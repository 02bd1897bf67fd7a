#include "actors/guards/guard_lease.hpp"

#include <algorithm>

namespace gate::actors {

guard_lease::decision guard_lease::decide(const guard_view& view, guard_use use, time_point now) {
    using state = circuit_breaker::state;
    if (view.given_up)
        return upstream_guard::refused{upstream_guard::refused::reason::given_up,
                                       std::chrono::milliseconds(0)};
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
    if (slots_.take(now))
        return admit_here{};
    return ask_actor{};
}

} // namespace gate::actors
