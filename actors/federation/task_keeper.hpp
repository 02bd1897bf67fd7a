// The task keeper actor: a thin shell over task_registry. Pins arrive fire-and-forget from
// the io thread when a call mints a task; lookups are answered; every hour (actor clock, so
// virtual in tests) expired records are dropped.
#pragma once

#include "actors/federation/task_registry.hpp"
#include "actors/message_inspection.hpp"
#include "actors/reply.hpp"

#include <boost/describe/class.hpp>
#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace gate::actors {

struct task_pin {
    std::string task_id;
    std::uint64_t principal;
    std::string upstream; // its id
};

// Where a probe found a task nobody has a record of: reachable by any caller, owned by none.
struct task_locate {
    std::string task_id;
    std::string upstream; // its id
};

struct task_find {
    std::string task_id;
    std::uint64_t principal;
    reply_to<task_owner> reply;
};

// How many records are held (tests, metrics).
struct task_count {
    reply_to<std::size_t> reply;
};

// The keeper's own timer: expired records are dropped.
struct task_sweep {};

using task_keeper_actor = caf::typed_actor<caf::reacts_to<task_pin>, caf::reacts_to<task_locate>,
                                           caf::reacts_to<task_find>, caf::reacts_to<task_count>,
                                           caf::reacts_to<task_sweep>>;

task_keeper_actor
spawn_task_keeper(caf::actor_system& sys,
                  std::chrono::steady_clock::duration sweep_every = std::chrono::hours(1));

BOOST_DESCRIBE_STRUCT(task_pin, (), (task_id, principal, upstream))
BOOST_DESCRIBE_STRUCT(task_locate, (), (task_id, upstream))
BOOST_DESCRIBE_STRUCT(task_find, (), (task_id, principal, reply))
BOOST_DESCRIBE_STRUCT(task_count, (), (reply))
BOOST_DESCRIBE_STRUCT(task_sweep, (), ())

} // namespace gate::actors
