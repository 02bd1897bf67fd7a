#include "actors/supervision/restart_intensity.hpp"

#include <algorithm>

namespace gate::actors {

std::variant<restart_intensity::restart, restart_intensity::give_up>
restart_intensity::stopped(time_point now) {
    // A restart exactly `within` ago has left the window.
    while (!recent_.empty() && now - recent_.front() >= policy_.within)
        recent_.pop_front();
    if (recent_.size() >= policy_.max_restarts)
        return give_up{recent_.size()};
    recent_.push_back(now);
    auto pause = std::chrono::milliseconds{0};
    if (recent_.size() > 1) {
        pause = policy_.first_pause;
        for (std::size_t i = 2; i < recent_.size() && pause < policy_.max_pause; ++i)
            pause *= 2;
    }
    return restart{std::min(pause, policy_.max_pause), recent_.size()};
}

} // namespace gate::actors
