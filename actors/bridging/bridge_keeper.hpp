// The bridge keeper actor: the io thread's one address for everything about bridged sessions.
// It spawns one bridged-session actor per (downstream session, upstream) on that pair's first
// event (actors/bridging/bridged_session_actor: its calls in flight, subscriptions and own idle
// timer), routes each event to it, and keeps the index that spans them (bridge_ledger: which
// session a call went to, who subscribed to what), so it answers where cancellations and resource
// updates go. The io thread sends it batches (bridge_batch), one per turn of its loop.
#pragma once

#include "actors/bridging/bridge_messages.hpp"

#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace gate::actors {

struct bridge_timing {
    std::chrono::steady_clock::duration idle = std::chrono::minutes(5);
};

using bridge_keeper_actor =
    caf::typed_actor<caf::reacts_to<bridge_batch>, caf::reacts_to<bridge_used>,
                     caf::reacts_to<bridge_call_started>, caf::reacts_to<bridge_call_ended>,
                     caf::reacts_to<bridge_cancel_lookup>, caf::reacts_to<bridge_subscription>,
                     caf::reacts_to<bridge_updated>, caf::reacts_to<bridge_session_ended>,
                     caf::reacts_to<bridged_idle>>;

// When the keeper stops, its bridged-session actors stop with it (a respawned keeper starts
// with none: docs/architecture.md, Supervision).
bridge_keeper_actor spawn_bridge_keeper(caf::actor_system& sys, retire_bridges retire,
                                        bridge_timing timing = {});

} // namespace gate::actors
