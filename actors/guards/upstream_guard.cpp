#include "actors/guards/upstream_guard.hpp"

namespace gate::actors {

upstream_guard::upstream_guard(std::optional<std::int64_t> requests_per_minute) {
    if (requests_per_minute)
        window_.emplace(*requests_per_minute);
}

std::variant<upstream_guard::granted, upstream_guard::refused>
upstream_guard::grant(guard_use use, time_point now, const slot_demand& demand) {
    if (use != guard_use::invocation || !window_)
        return granted{};
    auto b = window_->take_batch(now, demand);
    if (b.taken == 0)
        return refused{refused::reason::rate_limited, b.wait};
    return granted{false, b.taken, b.until};
}

} // namespace gate::actors
