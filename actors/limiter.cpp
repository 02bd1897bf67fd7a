#include "actors/limiter.hpp"

#include <caf/all.hpp>

namespace gate {

namespace {

struct limiter_state {
    std::optional<sliding_window> global;
    static inline const char* name = "gate.limiter";
};

limiter_actor::behavior_type limiter(limiter_actor::stateful_pointer<limiter_state> self,
                                     std::int64_t requests_per_minute) {
    self->state.global.emplace(requests_per_minute);
    return {
        [=](limit_ask& m) { m.reply(self->state.global->take_batch(self->clock().now())); },
    };
}

} // namespace

limiter_actor spawn_limiter(caf::actor_system& sys, std::int64_t requests_per_minute) {
    return sys.spawn(limiter, requests_per_minute);
}

} // namespace gate
