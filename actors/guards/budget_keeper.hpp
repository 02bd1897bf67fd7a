// The budget keeper actor: this instance's allowances of upstream invocations (spec: Budget
// lifecycle), a thin shell over budget_ledger. The io thread does not ask per call: it asks
// for a reservation of an account's allowance (a sixteenth of what is left, 1 to 64) and
// spends it itself (budget_ledger's reservations), so a large allowance costs one message per
// 64 calls and the last calls of a period are exact. With a shared store the reservations are
// the fleet's (gateway/fleet/fleet_store) and the keeper is told what they were, so the fallback
// when the store does not answer starts from this instance's real use.
//
// Calendar periods are UTC wall time; the keeper reads it through the function it was given,
// so tests drive it from the actor clock (virtual time under the test coordinator).
#pragma once

#include "actors/guards/budget_ledger.hpp"
#include "actors/message_inspection.hpp"
#include "actors/reply.hpp"

#include <boost/describe/class.hpp>
#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <functional>
#include <string>

namespace gate::actors {

// A reservation of `account`'s allowance as configured now (a reload may change it).
struct budget_reserve_ask {
    std::string account; // "server", "upstream alpha", "tenant acme"
    config::budget budget;
    reply_to<std::int64_t> reply; // the invocations reserved; 0 when none are left
};

// The fleet's store reserved `n` for this instance: counted here too.
struct budget_reserved_elsewhere {
    std::string account;
    config::budget budget;
    std::int64_t n = 0;
};

using budget_keeper_actor =
    caf::typed_actor<caf::reacts_to<budget_reserve_ask>, caf::reacts_to<budget_reserved_elsewhere>>;

// Wall time as the keeper reads it, given the actor clock's now.
using wall_clock = std::function<wall_time(std::chrono::steady_clock::time_point)>;
inline wall_time system_wall_time(std::chrono::steady_clock::time_point) {
    return std::chrono::system_clock::now();
}

budget_keeper_actor spawn_budget_keeper(caf::actor_system& sys,
                                        wall_clock clock = system_wall_time);

BOOST_DESCRIBE_STRUCT(budget_reserve_ask, (), (account, budget, reply))
BOOST_DESCRIBE_STRUCT(budget_reserved_elsewhere, (), (account, budget, n))

} // namespace gate::actors
