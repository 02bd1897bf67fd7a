#include "actors/guards/guard_board.hpp"

namespace gate {

guard_board::guard_board(config::upstream cfg)
    : cfg_(std::move(cfg)), view_(std::make_shared<const guard_view>(initial_view(cfg_))) {}

guard_view guard_board::initial_view(const config::upstream& cfg) {
    guard_view v;
    v.limited = cfg.rate_limit.has_value();
    v.in_rotation.assign(cfg.urls.size(), true);
    return v;
}

guard_view guard_board::given_up_view(const config::upstream& cfg) {
    auto v = initial_view(cfg);
    v.given_up = true;
    v.breaker = circuit_breaker::state::open;
    v.reopens_at = guard_view::time_point::max();
    return v;
}

bool guard_board::request_probe_round() const {
    std::function<void()> round;
    {
        std::lock_guard lock(mutex_);
        round = probe_round_;
    }
    if (!round)
        return false;
    round();
    return true;
}

} // namespace gate
