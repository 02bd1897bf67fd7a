#include "hooks/store_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace gate::hooks {

caf::actor spawn_store_actor(caf::actor_system& sys, std::shared_ptr<store> db) {
    return sys.spawn<caf::detached>([db](caf::event_based_actor*) -> caf::behavior {
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
    });
}

} // namespace gate::hooks
