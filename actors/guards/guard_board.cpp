#include "actors/guards/guard_board.hpp"

namespace gate::actors {

guard_board::guard_board(std::shared_ptr<const config::upstream> cfg)
    : cfg_(std::move(cfg)), view_(std::make_shared<const guard_view>(initial_view(*cfg_))) {}

guard_board::guard_board(const config::upstream& cfg)
    : guard_board(std::make_shared<const config::upstream>(cfg)) {}

guard_view guard_board::initial_view(const config::upstream& cfg) {
    guard_view v;
    v.limited = cfg.rate_limit.has_value();
    v.in_rotation.assign(cfg.urls.size(), true);
    return v;
}

template <class Change> void guard_board::amend(Change change) {
    auto at = guard_view::time_point::clock::now(); // not the actor's: the io thread reads it
    std::lock_guard lock(mutex_); // one writer at a time; readers load the pointer
    auto now = view_.load();
    auto next = *now;
    change(next);
    if (next == *now)
        return;
    changes_.note(now.get(), next, at);
    view_.store(std::make_shared<const guard_view>(std::move(next)));
}

void guard_board::publish_breaker(circuit_breaker::state recorded, bool probe_out,
                                  guard_view::time_point reopens_at, std::int64_t failures) {
    amend([&](guard_view& v) {
        v.breaker = recorded;
        v.probe_out = probe_out;
        v.reopens_at = reopens_at;
        v.failures = failures;
    });
}

void guard_board::publish_rotation(bool limited, std::vector<bool> in_rotation) {
    amend([&](guard_view& v) {
        v.limited = limited;
        v.in_rotation = std::move(in_rotation);
        v.given_up = false;
    });
}

void guard_board::give_up() {
    amend([](guard_view& v) { v.given_up = true; });
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

} // namespace gate::actors
