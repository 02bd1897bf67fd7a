// The latest changes of an upstream's guards, for the console's timeline (/api/traffic): its
// breaker's recorded state and each replica going out of rotation or back, told by comparing
// each view its actor publishes with the one before (guard_board::publish). Plain C++ with time
// passed in; a fixed ring, so a flapping upstream costs no more memory than a quiet one.
#pragma once

#include "actors/guards/guard_view.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gate::actors {

struct guard_change {
    enum class kind : std::uint8_t { breaker, endpoint, given_up };
    guard_view::time_point at{};
    kind what = kind::breaker;
    // breaker: the states (circuit_breaker::state); endpoint: 0 out of rotation, 1 in.
    std::uint8_t from = 0, to = 0;
    std::size_t endpoint = 0; // its place in upstreams[].urls (endpoint changes)
};

class guard_changes {
public:
    static constexpr std::size_t kept = 64;

    // What differs between the view published before (null: none) and the one published now.
    void note(const guard_view* before, const guard_view& now, guard_view::time_point at) {
        if (!before)
            return;
        if (before->given_up != now.given_up && now.given_up)
            push({at, guard_change::kind::given_up, 0, 1, 0});
        else if (before->breaker != now.breaker)
            push({at, guard_change::kind::breaker, static_cast<std::uint8_t>(before->breaker),
                  static_cast<std::uint8_t>(now.breaker), 0});
        auto n = std::min(before->in_rotation.size(), now.in_rotation.size());
        for (std::size_t e = 0; e < n; ++e)
            if (before->in_rotation[e] != now.in_rotation[e])
                push({at, guard_change::kind::endpoint,
                      before->in_rotation[e] ? std::uint8_t(1) : std::uint8_t(0),
                      now.in_rotation[e] ? std::uint8_t(1) : std::uint8_t(0), e});
    }

    // Oldest first.
    std::vector<guard_change> list() const {
        std::vector<guard_change> out;
        out.reserve(held_);
        for (std::size_t k = held_; k > 0; --k)
            out.push_back(ring_[(next_ + kept - k) % kept]);
        return out;
    }

private:
    void push(const guard_change& c) {
        ring_[next_] = c;
        next_ = (next_ + 1) % kept;
        held_ = held_ < kept ? held_ + 1 : kept;
    }
    std::array<guard_change, kept> ring_{};
    std::size_t next_ = 0, held_ = 0;
};

} // namespace gate::actors
