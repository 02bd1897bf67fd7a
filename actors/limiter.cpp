#include "actors/limiter.hpp"

#include "actors/principal_windows.hpp"

#include <caf/all.hpp>
#include <unordered_map>

namespace gate {

namespace {

struct limiter_state {
    std::optional<sliding_window> global;
    std::optional<principal_windows> principals;
    std::unordered_map<std::string, sliding_window> tenants;
    static inline const char* name = "gate.limiter";
};

// What an ask for a limit that is not configured gets: room, until the batch's window slot
// would end anyway.
sliding_window::batch unlimited(sliding_window::time_point now) {
    return {sliding_window::max_batch, std::chrono::milliseconds(0), now + std::chrono::seconds(1)};
}

limiter_actor::behavior_type limiter(limiter_actor::stateful_pointer<limiter_state> self,
                                     std::optional<std::int64_t> requests_per_minute,
                                     std::optional<std::int64_t> per_principal_per_minute) {
    if (requests_per_minute)
        self->state.global.emplace(*requests_per_minute);
    if (per_principal_per_minute)
        self->state.principals.emplace(*per_principal_per_minute);
    return {
        [=](limit_ask& m) {
            auto now = self->clock().now();
            m.reply(self->state.global ? self->state.global->take_batch(now) : unlimited(now));
        },
        [=](tenant_limit_ask& m) {
            auto& tenants = self->state.tenants;
            auto it = tenants.find(m.tenant);
            if (it == tenants.end() || it->second.limit() != m.requests_per_minute)
                it =
                    tenants.insert_or_assign(m.tenant, sliding_window(m.requests_per_minute)).first;
            m.reply(it->second.take_batch(self->clock().now()));
        },
        [=](principal_limit_ask& m) {
            auto now = self->clock().now();
            m.reply(self->state.principals ? self->state.principals->take_batch(m.principal, now)
                                           : unlimited(now));
        },
    };
}

} // namespace

limiter_actor spawn_limiter(caf::actor_system& sys, std::optional<std::int64_t> requests_per_minute,
                            std::optional<std::int64_t> per_principal_per_minute) {
    return sys.spawn(limiter, requests_per_minute, per_principal_per_minute);
}

} // namespace gate
