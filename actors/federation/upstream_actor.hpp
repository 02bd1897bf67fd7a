// The upstream actor, one per upstream id: it owns what is that upstream's alone among its guards
// (its rate limit, which replicas are in rotation, active health probing) and publishes them on
// the upstream's guard_board. Its circuit breaker is the breaker actor's
// (actors/guards/breaker_actor), which publishes on the same board. The io thread admits most
// calls from the board's view alone and asks this actor only for batches of rate-limit slots
// (guard_lease).
//
// Active health (healthCheck.intervalMs): the actor's timer asks the io thread, through the
// board, for a probe round; the verdicts come back as a message. Passive health: an ejected
// endpoint returns after its rest (the breaker's halfOpenAfterMs) on the actor's timer. Timers
// are the actor clock's, so tests run them in virtual time.
#pragma once

#include "actors/guards/breaker_actor.hpp"
#include "actors/guards/upstream_guard.hpp"
#include "actors/message_inspection.hpp"
#include "actors/reply.hpp"

#include <boost/describe/class.hpp>
#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::actors {

class guard_board;

// A batch of the upstream's window slots (slot_lease::demand) for an invocation, or an
// admission for gate's upkeep (which takes none).
struct guard_ask {
    guard_use use;
    slot_demand demand;
    reply_to<guard_answer> reply;
};
// A connect to one of the upstream's endpoints failed: it leaves the rotation.
struct endpoint_down {
    std::size_t index = 0;
    std::string why;
};
// One active health round: per endpoint, why its probe failed (nullopt: it passed).
struct probe_verdicts {
    std::vector<std::optional<std::string>> why;
};
// Run an active health round now, unless one is out (the io thread's first, and the
// actor's own start).
struct health_tick {};
// The actor's own timers (the next health round, an overdue round or probe, a rest that
// ends) are private to upstream_actor.cpp (actors/own_timers.hpp): no caller can send one.

using upstream_actor =
    caf::typed_actor<caf::reacts_to<guard_ask>, caf::reacts_to<endpoint_down>,
                     caf::reacts_to<probe_verdicts>, caf::reacts_to<health_tick>>;

// Spawns the actor of the board's upstream, with its guards fresh from the configuration (an
// empty window, every endpoint in rotation): a respawned actor starts over, and active health
// probing at once re-ejects what is still down. The circuit is the breaker actor's and stays as
// it was. It attaches itself to the board.
upstream_actor spawn_upstream_actor(caf::actor_system& sys, std::shared_ptr<guard_board> board);

BOOST_DESCRIBE_STRUCT(guard_ask, (), (use, demand, reply))
BOOST_DESCRIBE_STRUCT(endpoint_down, (), (index, why))
BOOST_DESCRIBE_STRUCT(probe_verdicts, (), (why))
BOOST_DESCRIBE_STRUCT(health_tick, (), ())

} // namespace gate::actors
