#include "actors/guards/limiter.hpp"

#include "actors/guards/principal_windows.hpp"
#include "actors/guards/tool_limits.hpp"

#include <caf/all.hpp>
#include <unordered_map>

namespace gate::actors {

namespace {

struct limiter_state {
    std::optional<sliding_window> global;
    std::optional<principal_windows> principals;
    std::int64_t principal_limit = 0;
    std::unordered_map<std::string, sliding_window> tenants;
    std::optional<tool_windows> tools;
    static inline const char* name = "gate.limiter";
};

limiter_actor::behavior_type limiter(limiter_actor::stateful_pointer<limiter_state> self,
                                     std::size_t max_principals) {
    return {
        [=](limit_ask& m) {
            auto& global = self->state.global;
            if (!global || global->limit() != m.requests_per_minute)
                global.emplace(m.requests_per_minute);
            m.reply(global->take_batch(self->clock().now(), m.demand));
        },
        [=](tenant_limit_ask& m) {
            auto& tenants = self->state.tenants;
            auto it = tenants.find(m.tenant);
            if (it == tenants.end() || it->second.limit() != m.requests_per_minute)
                it =
                    tenants.insert_or_assign(m.tenant, sliding_window(m.requests_per_minute)).first;
            m.reply(it->second.take_batch(self->clock().now(), m.demand));
        },
        [=](principal_limit_ask& m) {
            auto& st = self->state;
            if (!st.principals || st.principal_limit != m.per_minute) {
                st.principals.emplace(m.per_minute, max_principals);
                st.principal_limit = m.per_minute;
            }
            m.reply(st.principals->take_batch(m.principal, self->clock().now(), m.demand));
        },
        [=](tool_limit_ask& m) {
            auto& tools = self->state.tools;
            if (!tools)
                tools.emplace(max_principals);
            m.reply(tools->take_batch(m.scope, m.principal, m.per_minute, self->clock().now(),
                                      m.demand));
        },
    };
}

} // namespace

limiter_actor spawn_limiter(caf::actor_system& sys, std::size_t max_principals) {
    // Never spawned without an argument: CAF 0.17 binds an empty argument pack through a null
    // pointer (UBSan: reference binding to null pointer).
    return sys.spawn(limiter, max_principals);
}

} // namespace gate::actors
