// The bridge keeper actor: a thin shell over bridge_ledger. It learns of calls, upstream
// requests and subscriptions from the io thread, answers where cancellations, answers and
// updates go, and every `sweep_every` (actor clock, so virtual in tests) retires bridged
// sessions idle for `idle` through the `retire` callback.
#pragma once

#include "actors/bridge_messages.hpp"

#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace gate {

struct bridge_timing {
    std::chrono::steady_clock::duration idle = std::chrono::minutes(5);
    std::chrono::steady_clock::duration sweep_every = std::chrono::seconds(30);
};

using bridge_keeper_actor =
    caf::typed_actor<caf::reacts_to<bridge_batch>, caf::reacts_to<bridge_used>,
                     caf::reacts_to<bridge_call_started>, caf::reacts_to<bridge_call_ended>,
                     caf::reacts_to<bridge_cancel_lookup>, caf::reacts_to<bridge_subscription>,
                     caf::reacts_to<bridge_updated>, caf::reacts_to<bridge_session_ended>,
                     caf::reacts_to<bridge_sweep>>;

bridge_keeper_actor spawn_bridge_keeper(caf::actor_system& sys, retire_bridges retire,
                                        bridge_timing timing = {});

} // namespace gate
