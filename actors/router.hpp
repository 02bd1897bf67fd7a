// The router actor: owns the snapshot pointer and the federation state (list caches, resource
// ownership), answers routing questions. It never does I/O; the transport fetches what the
// plan names and reports back.
#pragma once

#include "actors/router_messages.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

namespace gate {

caf::actor spawn_router(caf::actor_system& sys, std::shared_ptr<const snapshot> snap);

} // namespace gate
