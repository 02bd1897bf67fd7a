// The breaker actor, one per process: it owns every upstream's circuit breaker
// (actors/guards/circuit_breaker, the state machine as plain C++) and publishes each one's
// state on that upstream's guard_board, where the io thread reads it on every call without a
// message. The io thread reports outcomes to it: a success only when it changes something
// (failures were counted, or it was the probe), fire-and-forget; a failure as an ask, answered
// once counted, so the next call already sees the circuit it opened. It asks the actor for the
// half-open probe, the one decision that needs an order across calls.
//
// The upstream's own actor (actors/federation/upstream_actor) keeps what is the upstream's
// alone: its rate limit, which replicas are in rotation, active health. A restart of either
// loses only its own part (docs/architecture.md, what a restart loses): a respawned breaker
// actor starts every circuit closed; a respawned upstream actor leaves the circuit as it was.
#pragma once

#include "actors/guards/upstream_guard.hpp"
#include "actors/message_inspection.hpp"
#include "actors/reply.hpp"

#include <boost/describe/class.hpp>
#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace gate::actors {

class guard_board;

using guard_answer = std::variant<upstream_guard::granted, upstream_guard::refused>;

// May a call go to the board's upstream while its circuit is not closed? The half-open probe
// goes to one asker; the others are refused until it reports. A board the actor does not
// hold (retired by a reload meanwhile) is answered with an admission: gate's bookkeeping
// missing never fails a call.
struct breaker_ask {
    std::shared_ptr<guard_board> board;
    reply_to<guard_answer> reply;
};
// The outcome of a call admitted to the board's upstream. `counted` is answered once applied
// and published (empty: nobody waits).
struct breaker_outcome {
    std::shared_ptr<guard_board> board;
    bool success = true;
    bool probe = false;
    std::string why; // a failure's, for the log
    reply_to<bool> counted;
};
// A probe that ended without an outcome (its caller went away): the next call probes.
struct breaker_abandon {
    std::shared_ptr<guard_board> board;
};
// The fleet's shared breaker is open for `rest` (another instance counted the failures, or
// the fleet's count reached the threshold): a closed circuit opens until then.
struct breaker_fleet_opened {
    std::shared_ptr<guard_board> board;
    std::chrono::milliseconds rest{0};
    reply_to<bool> counted; // answered once the view is published (empty: nobody waits)
};
// The upstreams there are now (the supervisor's, at start and at each reload): a board kept
// keeps its circuit, a new one starts closed, a retired one is forgotten.
struct breaker_boards {
    std::vector<std::shared_ptr<guard_board>> boards;
};

using breaker_actor =
    caf::typed_actor<caf::reacts_to<breaker_ask>, caf::reacts_to<breaker_outcome>,
                     caf::reacts_to<breaker_abandon>, caf::reacts_to<breaker_fleet_opened>,
                     caf::reacts_to<breaker_boards>>;

// Spawns the breaker actor holding a closed circuit for each of `boards`: each board shows it
// closed and names the new actor before this returns, so a respawn leaves no moment where the
// io thread reads a dead actor's circuit or asks it.
breaker_actor spawn_breaker_actor(caf::actor_system& sys,
                                  std::vector<std::shared_ptr<guard_board>> boards);

BOOST_DESCRIBE_STRUCT(breaker_ask, (), (board, reply))
BOOST_DESCRIBE_STRUCT(breaker_outcome, (), (board, success, probe, why, counted))
BOOST_DESCRIBE_STRUCT(breaker_abandon, (), (board))
BOOST_DESCRIBE_STRUCT(breaker_fleet_opened, (), (board, rest, counted))
BOOST_DESCRIBE_STRUCT(breaker_boards, (), (boards))

} // namespace gate::actors
