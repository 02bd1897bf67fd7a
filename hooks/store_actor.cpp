#include "hooks/store_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace gate::hooks {

namespace {

// The store travels as a spawn argument: CAF 0.17 dereferences an empty argument tuple for an
// actor spawned without any (UBSan reports it).
caf::behavior store_behavior(caf::event_based_actor*, std::shared_ptr<store> db) {
    return {
        [db](store_job& job) {
            try {
                job.run(*db);
            } catch (const std::exception& e) {
                // The job's reply channel, never fired, answers nullopt as it is dropped.
                spdlog::error("store: {}", e.what());
            }
        },
    };
}

} // namespace

caf::actor spawn_store_actor(caf::actor_system& sys, std::shared_ptr<store> db) {
    return sys.spawn<caf::detached>(store_behavior, std::move(db));
}

} // namespace gate::hooks
