// The router actor: owns the snapshot pointer and the federation state (list caches, resource
// ownership), answers routing questions. It never does I/O; the transport fetches what the
// plan names and reports back.
#pragma once

#include "actors/federation/router_messages.hpp"
#include "protocol/cursor_codec.hpp"
#include "protocol/list_kind.hpp"

#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <cstddef>

namespace gate::actors {

// What the router understands: a message it does not declare is a compile error at the
// sender, not a dropped message at run time. Answers travel in each message's reply channel.
using router_actor =
    caf::typed_actor<caf::reacts_to<plan_list>, caf::reacts_to<complete_list>,
                     caf::reacts_to<page_tasks>, caf::reacts_to<resolve_call>,
                     caf::reacts_to<invalidate_upstream>, caf::reacts_to<replace_snapshot>,
                     caf::reacts_to<read_cached_lists>, caf::reacts_to<query_tools>>;

// `cursors`: the process's one cursor key, shared by every router (a cursor outlives the
// router that minted it: a respawn, another shard).
router_actor
spawn_router(caf::actor_system& sys, std::shared_ptr<const snapshot> snap,
             protocol::cursor_codec cursors = protocol::cursor_codec::with_random_key());

// The routers are sharded by list kind: tools, prompts, and resources (with resource
// templates, resource routing by URI and task paging). Each kind keeps one list cache in one
// actor, so routing work spreads over the scheduler's workers without splitting a cache
// (a router per worker would fetch each list once per router).
inline constexpr std::size_t router_shards = 3;
constexpr std::size_t router_shard(protocol::list_kind k) {
    switch (k) {
    case protocol::list_kind::tools:
        return 0;
    case protocol::list_kind::prompts:
        return 1;
    default:
        return 2;
    }
}
// Resource URIs resolve where the resource lists are cached.
inline constexpr std::size_t resource_shard = router_shard(protocol::list_kind::resources);

} // namespace gate::actors
