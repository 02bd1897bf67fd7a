#include "transport/http/deadline_table.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

namespace gate::transport {

deadline_table::handle deadline_table::arm(time_point deadline, std::function<void()> on_expiry) {
    std::uint32_t i = 0;
    if (free_.empty()) {
        i = static_cast<std::uint32_t>(slots_.size());
        slots_.emplace_back();
    } else {
        i = free_.back();
        free_.pop_back();
    }
    auto& s = slots_[i];
    s.deadline = deadline;
    s.on_expiry = std::move(on_expiry);
    s.armed = true;
    ++armed_;
    return {i, s.generation};
}

bool deadline_table::disarm(handle h) {
    if (h.slot >= slots_.size())
        return false;
    auto& s = slots_[h.slot];
    if (!s.armed || s.generation != h.generation)
        return false;
    release(h.slot);
    return true;
}

void deadline_table::release(std::uint32_t i) {
    auto& s = slots_[i];
    s.armed = false;
    s.on_expiry = nullptr;
    ++s.generation;
    --armed_;
    free_.push_back(i);
}

std::size_t deadline_table::expire(time_point now) {
    std::vector<std::tuple<time_point, std::uint32_t, std::uint32_t>> due;
    for (std::uint32_t i = 0; i < slots_.size(); ++i)
        if (slots_[i].armed && slots_[i].deadline <= now)
            due.emplace_back(slots_[i].deadline, i, slots_[i].generation);
    std::sort(due.begin(), due.end());
    std::size_t fired = 0;
    for (auto [deadline, i, generation] : due) {
        // An earlier entry's action may have disarmed this one (or armed its slot anew).
        auto& s = slots_[i];
        if (!s.armed || s.generation != generation)
            continue;
        auto action = std::move(s.on_expiry);
        release(i);
        ++fired;
        if (action)
            action();
    }
    return fired;
}

std::optional<deadline_table::time_point> deadline_table::next() const {
    std::optional<time_point> earliest;
    for (const auto& s : slots_)
        if (s.armed && (!earliest || s.deadline < *earliest))
            earliest = s.deadline;
    return earliest;
}

} // namespace gate::transport
