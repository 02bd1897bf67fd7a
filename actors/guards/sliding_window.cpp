#include "actors/guards/sliding_window.hpp"

#include <algorithm>

namespace gate::actors {

sliding_window::sliding_window(std::int64_t limit, std::chrono::milliseconds window)
    : limit_(limit), slot_(std::chrono::duration_cast<std::chrono::nanoseconds>(window) /
                           static_cast<std::int64_t>(slots)) {
    if (slot_.count() < 1)
        slot_ = std::chrono::nanoseconds(1);
}

void sliding_window::advance(time_point now) {
    std::int64_t index = now.time_since_epoch() / slot_;
    if (head_ < 0 || index - head_ >= static_cast<std::int64_t>(slots)) {
        counts_.fill(0);
        total_ = 0;
        head_ = index;
        return;
    }
    while (head_ < index) {
        ++head_;
        auto& c = counts_[slot_of(head_)];
        total_ -= c;
        c = 0;
    }
}

std::int64_t sliding_window::in_window(time_point now) {
    advance(now);
    return total_;
}

std::optional<std::chrono::milliseconds> sliding_window::take(time_point now) {
    auto b = take_up_to(1, now);
    if (b.taken == 1)
        return std::nullopt;
    return b.wait;
}

sliding_window::batch sliding_window::take_up_to(std::int64_t n, time_point now) {
    advance(now);
    auto room = limit_ - total_;
    if (room <= 0)
        return {0, wait_for_room(now), time_point{}};
    auto taken = n < room ? n : room;
    counts_[slot_of(head_)] += taken;
    total_ += taken;
    return {taken, std::chrono::milliseconds(0), time_point(slot_ * (head_ + 1))};
}

sliding_window::batch sliding_window::take_batch(time_point now, const slot_demand& demand) {
    advance(now);
    auto room = limit_ - total_;
    auto n = std::min(room / 16, demand.wanted(time_point(slot_ * (head_ + 1)) - now));
    return take_up_to(n < 1 ? 1 : n, now);
}

std::chrono::milliseconds sliding_window::wait_for_room(time_point now) const {
    // The oldest slots leave the window one by one; room appears once what is left is under
    // the limit. Slot k (0 = oldest) leaves when the window's start passes its end.
    std::int64_t left = total_;
    for (std::size_t k = 0; k < slots; ++k) {
        std::int64_t index =
            head_ - static_cast<std::int64_t>(slots) + 1 + static_cast<std::int64_t>(k);
        left -= counts_[slot_of(index)];
        if (left < limit_) {
            auto leaves = time_point(slot_ * (index + static_cast<std::int64_t>(slots)));
            auto wait = std::chrono::ceil<std::chrono::milliseconds>(leaves - now);
            return wait.count() < 1 ? std::chrono::milliseconds(1) : wait;
        }
    }
    return std::chrono::duration_cast<std::chrono::milliseconds>(slot_ * slots);
}

} // namespace gate::actors
