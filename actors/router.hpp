// The router actor: owns the snapshot pointer and the federation state (list caches, resource
// ownership), answers routing questions. It never does I/O; the transport fetches what the
// plan names and reports back.
#pragma once

#include "actors/router_messages.hpp"

#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace gate {

// What the router understands: a message it does not declare is a compile error at the
// sender, not a dropped message at run time. Answers travel in each message's reply channel.
using router_actor =
    caf::typed_actor<caf::reacts_to<plan_list>, caf::reacts_to<complete_list>,
                     caf::reacts_to<page_tasks>, caf::reacts_to<resolve_call>,
                     caf::reacts_to<invalidate_upstream>, caf::reacts_to<replace_snapshot>>;

router_actor spawn_router(caf::actor_system& sys, std::shared_ptr<const snapshot> snap);

} // namespace gate
