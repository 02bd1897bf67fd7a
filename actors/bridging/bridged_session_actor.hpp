// The actor of one bridged session, one per (downstream session, upstream), spawned by the
// bridge keeper on the session's first event there: a thin shell over bridged_session. It
// holds the client's calls in flight on that session, counts its subscriptions and listening
// streams, and keeps its own idle timer. Once idle for the idle limit (spec rule 4: 5
// minutes) it tells the keeper how many of its events it has handled (bridged_idle); the
// keeper, if it sent none since, forgets it and ends it (bridged_end), and it hands itself to
// `retire` (the io side ends the upstream session). An event still on its way to it keeps it.
// Timers run on the actor clock, so tests run them in virtual time.
#pragma once

#include "actors/bridging/bridge_keeper.hpp"
#include "actors/bridging/bridge_messages.hpp"
#include "actors/message_inspection.hpp"

#include <boost/describe/class.hpp>
#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>

namespace gate::actors {

// Its own timer: is it idle now?
struct bridged_idle_check {};
// The keeper ends it: its downstream session ended (`retire`: the io side ends the upstream
// session too) or its upstream was retired by a reload (nothing left to end).
struct bridged_end {
    bool retire = true;
};

using bridged_session_actor =
    caf::typed_actor<caf::reacts_to<bridge_used>, caf::reacts_to<bridge_call_started>,
                     caf::reacts_to<bridge_call_ended>, caf::reacts_to<bridge_cancel_lookup>,
                     caf::reacts_to<bridge_subscription>, caf::reacts_to<bridge_listening>,
                     caf::reacts_to<bridged_idle_check>, caf::reacts_to<bridged_end>>;

struct bridged_session_args {
    retired_bridge key;
    bridge_keeper_actor keeper;
    std::chrono::steady_clock::duration idle;
    retire_bridges retire;
    std::size_t streams = 0; // GET streams its client has open already
};

bridged_session_actor spawn_bridged_session(caf::actor_system& sys, bridged_session_args args);

BOOST_DESCRIBE_STRUCT(bridged_idle_check, (), ())
BOOST_DESCRIBE_STRUCT(bridged_end, (), (retire))
BOOST_DESCRIBE_STRUCT(bridged_session_args, (), (key, keeper, idle, retire, streams))

} // namespace gate::actors
