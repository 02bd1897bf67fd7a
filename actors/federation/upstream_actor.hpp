// The upstream actor, one per upstream id: it owns that upstream's guards (circuit breaker,
// rate limit, which replicas are in rotation, active health probing) and publishes them on
// the upstream's guard_board as an immutable view. The io thread admits most calls from the
// view alone and reports outcomes: a success only when it changes something (failures were
// counted, or it was the probe), fire-and-forget; a failure as an ask, answered once counted,
// so the next call already sees the circuit it opened. It asks the actor for the half-open
// probe and for batches of rate-limit slots (guard_lease).
//
// Active health (healthCheck.intervalMs): the actor's timer asks the io thread, through the
// board, for a probe round; the verdicts come back as a message. Passive health: an ejected
// endpoint returns after its rest (the breaker's halfOpenAfterMs) on the actor's timer. Timers
// are the actor clock's, so tests run them in virtual time.
#pragma once

#include "actors/guards/upstream_guard.hpp"
#include "actors/reply.hpp"

#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
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

namespace gate {

class guard_board;

using guard_answer = std::variant<upstream_guard::granted, upstream_guard::refused>;

// An admission the view could not decide: the half-open probe, or a batch of slots.
struct guard_ask {
    guard_use use;
    slot_demand demand; // for a batch of the upstream's window (slot_lease::demand)
    reply_to<guard_answer> reply;
};
// The outcome of an admitted call. `counted` is answered once applied (the probe's success
// is awaited, so the calls after it already see the closed circuit); empty: nobody waits.
struct guard_success {
    bool probe = false;
    reply_to<bool> counted;
};
struct guard_failure {
    bool probe = false;
    std::string why;
    reply_to<bool> counted; // answered once the failure is counted and the view published
};
// A probe that ended without an outcome (its caller went away).
struct guard_abandon {};
// The fleet's shared breaker is open for `rest` (another instance counted the failures, or
// the fleet's count reached the threshold): a closed circuit opens until then.
struct fleet_opened {
    std::chrono::milliseconds rest;
    reply_to<bool> counted; // answered once the view is published
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

// How long past its upstream's request timeout a probe or a health round may stay out.
inline constexpr std::chrono::seconds guard_grace{5};

using upstream_actor =
    caf::typed_actor<caf::reacts_to<guard_ask>, caf::reacts_to<guard_success>,
                     caf::reacts_to<guard_failure>, caf::reacts_to<guard_abandon>,
                     caf::reacts_to<fleet_opened>, caf::reacts_to<endpoint_down>,
                     caf::reacts_to<probe_verdicts>, caf::reacts_to<health_tick>>;

// Spawns the actor of the board's upstream, with its guards fresh from the configuration
// (closed circuit, every endpoint in rotation): a respawned actor starts over, and active
// health probing at once re-ejects what is still down. It attaches itself to the board.
upstream_actor spawn_upstream_actor(caf::actor_system& sys, std::shared_ptr<guard_board> board);

} // namespace gate

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::guard_ask)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::guard_success)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::guard_failure)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::guard_abandon)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::fleet_opened)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::endpoint_down)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::probe_verdicts)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::health_tick)
