// The per-principal rate limit (server.rateLimit.perPrincipalPerMinute): one sliding window
// per authenticated principal, as plain C++ with time passed in; the limiter actor keeps it.
// Bounded: a window with nothing counted in the last minute holds no state worth keeping and
// is dropped when room is needed; at the bound with every window busy, the least recently
// used goes (its principal starts a fresh window: allowance forgiven, never taken).
#pragma once

#include "actors/guards/sliding_window.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace gate::actors {

class principal_windows {
public:
    using time_point = sliding_window::time_point;

    explicit principal_windows(std::int64_t limit, std::size_t max_principals = 100'000);

    // A batch of the principal's own window (sliding_window::take_batch).
    sliding_window::batch take_batch(const std::string& principal, time_point now,
                                     const slot_demand& demand = {});
    std::size_t size() const { return windows_.size(); }

private:
    struct entry {
        sliding_window window;
        time_point last_used;
    };
    void make_room(time_point now);

    std::int64_t limit_;
    std::size_t max_;
    std::unordered_map<std::string, entry> windows_;
};

} // namespace gate::actors
