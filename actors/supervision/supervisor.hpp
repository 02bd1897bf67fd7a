// The supervisor: spawns the process's actors (router, task keeper, bridge keeper, audit sink,
// limiter, budget keeper, span sink, the breaker actor holding every upstream's circuit, one
// upstream actor per upstream), monitors each, and respawns one that fails, rebuilt
// from the current snapshot, while the others keep answering. It owns the current snapshot: a
// reload reaches it as one message and it broadcasts the new snapshot to the actors that route on
// it.
//
// It judges each child's crashes (actors/supervision/restart_intensity): at most 5 restarts within
// 60 s, the first at once and the later ones after a pause that doubles from 100 ms (its own
// timer). Past that, an upstream's actor is left stopped and its upstream refuses every call as
// unavailable (-32041) until a reload gives it a fresh start; a process-wide actor's crash loop
// stops the supervisor itself, which the program hears and exits non-zero (its service manager
// restarts it).
//
// The io thread finds the actors through an actor_directory the supervisor republishes on
// every respawn, so a request after a restart talks to the new actor, never a dead handle.
// What a restart loses (docs/architecture.md, Supervision): a router's list caches (they
// are fetched again), the task keeper's records (unknown tasks are found by the probe), the
// bridge keeper's ledger (bridged sessions then end by the upstream's own idle timeout or the
// client's DELETE), audit events queued in the dead sink, the limiter's window (it starts
// empty), the breaker actor's circuits (every one starts closed), and an upstream actor's
// guard state (its own rate window starts empty and its endpoints in rotation; active probes
// re-eject what is still down; its circuit, the breaker actor's, stays as it was).
#pragma once

#include "actors/bridging/bridge_keeper.hpp"
#include "actors/federation/router.hpp"
#include "actors/federation/snapshot.hpp"
#include "actors/federation/task_keeper.hpp"
#include "actors/federation/upstream_actor.hpp"
#include "actors/guards/breaker_actor.hpp"
#include "actors/guards/budget_keeper.hpp"
#include "actors/guards/limiter.hpp"
#include "actors/message_inspection.hpp"
#include "actors/published.hpp"
#include "actors/sinks/audit.hpp"
#include "actors/sinks/span_sink.hpp"
#include "actors/supervision/restart_intensity.hpp"
#include "actors/supervision/supervision_tally.hpp"

#include <array>
#include <boost/describe/class.hpp>
#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <cstdio>
#include <memory>

namespace gate::actors {

// The actors the io thread talks to, replaced whole when one of them is respawned.
struct actor_set {
    std::array<router_actor, router_shards> routers; // by router_shard
    const router_actor& router_for(protocol::list_kind k) const { return routers[router_shard(k)]; }
    const router_actor& resource_router() const { return routers[resource_shard]; }
    task_keeper_actor tasks;
    bridge_keeper_actor bridges;
    audit_channel audit;
    limiter_actor limiter; // null without server.rateLimit.requestsPerMinute
    budget_keeper_actor budgets;
    span_sink_actor spans; // null without a tracing section
    // Every upstream's circuit breaker (actors/guards/breaker_actor); each board names it too.
    breaker_actor breakers;
};

class actor_directory {
public:
    // Read several times per request on the io thread (actors/published.hpp).
    std::shared_ptr<const actor_set> load() const { return set_.load(); }
    void store(std::shared_ptr<const actor_set> set) { set_.store(std::move(set)); }

private:
    actors::published<const actor_set> set_;
};

// A validated reload: the new snapshot, for every actor that routes on it, and the boards of
// its upstreams (a board kept from the last snapshot keeps its actor; a new one gets one; the
// actor of a board no longer there is stopped).
struct reload_snapshot {
    std::shared_ptr<const snapshot> snap;
    std::vector<std::shared_ptr<guard_board>> upstreams;
};
// The upstreams of the first snapshot (their clients exist once the io side is built).
struct adopt_upstreams {
    std::vector<std::shared_ptr<guard_board>> upstreams;
};

using supervisor_actor =
    caf::typed_actor<caf::reacts_to<reload_snapshot>, caf::reacts_to<adopt_upstreams>>;

struct supervised {
    std::shared_ptr<const snapshot> snap;
    std::optional<config::audit> audit;
    audit_outlet audit_outlet_ = {}; // where the audit sinks write and post
    span_outlet span_outlet_ = {};   // where the span sink posts (tracing from the snapshot)
    retire_bridges retire;
    bridge_timing bridge_timing_ = {};
    std::chrono::steady_clock::duration task_sweep = std::chrono::hours(1);
    // The fleet's cursor key (from the shared store), so a cursor minted by one instance
    // pages on another; absent: a random key of this process.
    std::optional<protocol::cursor_codec::key_type> cursor_key;
    restart_policy restarts = {}; // each child's restart intensity and pauses
    std::shared_ptr<supervision_tally> tally = std::make_shared<supervision_tally>();
};

// Spawns the supervisor and its actors; the directory holds them before this returns. The
// supervisor stops on its own only when a process-wide actor crashed past its intensity; its
// exit reason then says which.
supervisor_actor spawn_supervisor(caf::actor_system& sys, supervised what,
                                  std::shared_ptr<actor_directory> directory);

BOOST_DESCRIBE_STRUCT(reload_snapshot, (), (snap, upstreams))
BOOST_DESCRIBE_STRUCT(adopt_upstreams, (), (upstreams))

} // namespace gate::actors
