// What a fleet's shared store grants the request's guards before this instance's actors are
// asked (gateway/fleet/fleet_store implements it): a batch of a shared rate window, and a
// reservation of a shared budget. nullopt when the store does not answer: the guards then fall
// back to this instance's own state.
#pragma once

#include "actors/guards/sliding_window.hpp"
#include "actors/guards/slot_demand.hpp"

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace gate::gateway {

class shared_allowances {
public:
    using wall_time = std::chrono::system_clock::time_point;

    // A batch of slots of the fleet's window `scope`, sized by `demand`; none and the wait
    // when the window is full.
    virtual boost::asio::awaitable<std::optional<actors::sliding_window::batch>>
    take_window(const std::string& scope, std::int64_t limit,
                const actors::slot_demand& demand) = 0;
    // Up to a sixteenth of what is left (1 to 64) of `account`'s allowance for the period that
    // ends at `ends`; 0 when the fleet has spent it all.
    virtual boost::asio::awaitable<std::optional<std::int64_t>>
    reserve_budget(const std::string& account, std::int64_t allowance, wall_time ends) = 0;

protected:
    ~shared_allowances() = default;
};

} // namespace gate::gateway
