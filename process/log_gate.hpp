// At most one log line per interval for one kind of event, and how many were left out since:
// a flood (one caller opening sessions as fast as it can) must not flood the log too. Plain
// C++ with time passed in.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace gate::process {

class log_gate {
public:
    using time_point = std::chrono::steady_clock::time_point;
    explicit log_gate(std::chrono::steady_clock::duration interval) : interval_(interval) {}

    // nullopt: stay silent (counted); otherwise log, saying how many were left out before.
    std::optional<std::uint64_t> pass(time_point now) {
        if (opened_ && now < next_) {
            ++held_;
            return std::nullopt;
        }
        opened_ = true;
        next_ = now + interval_;
        auto left_out = held_;
        held_ = 0;
        return left_out;
    }

private:
    std::chrono::steady_clock::duration interval_;
    time_point next_{};
    bool opened_ = false;
    std::uint64_t held_ = 0;
};

} // namespace gate::process
