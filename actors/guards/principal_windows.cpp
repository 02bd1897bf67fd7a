#include "actors/guards/principal_windows.hpp"

#include <algorithm>
#include <iterator>

namespace gate::actors {

principal_windows::principal_windows(std::int64_t limit, std::size_t max_principals)
    : limit_(limit), max_(std::max<std::size_t>(max_principals, 1)) {}

sliding_window::batch principal_windows::take_batch(const std::string& principal, time_point now,
                                                    const slot_demand& demand) {
    auto it = windows_.find(principal);
    if (it == windows_.end()) {
        if (windows_.size() >= max_)
            make_room(now);
        it = windows_.emplace(principal, entry{sliding_window(limit_), now}).first;
    }
    it->second.last_used = now;
    return it->second.window.take_batch(now, demand);
}

void principal_windows::make_room(time_point now) {
    for (auto it = windows_.begin(); it != windows_.end();)
        it = it->second.window.in_window(now) == 0 ? windows_.erase(it) : std::next(it);
    if (windows_.size() < max_)
        return;
    auto oldest =
        std::min_element(windows_.begin(), windows_.end(), [](const auto& a, const auto& b) {
            return a.second.last_used < b.second.last_used;
        });
    windows_.erase(oldest);
}

} // namespace gate::actors
