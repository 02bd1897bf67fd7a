#include "actors/guards/budget_keeper.hpp"

#include <caf/all.hpp>

namespace gate::actors {

namespace {

struct budget_keeper_state {
    budget_ledger ledger;
    static inline const char* name = "gate.budget_keeper";
};

budget_keeper_actor::behavior_type
budget_keeper(budget_keeper_actor::stateful_pointer<budget_keeper_state> self, wall_clock clock) {
    return {
        [=](budget_reserve_ask& m) {
            auto now = clock(self->clock().now());
            m.reply(self->state.ledger.grant({m.account, &m.budget}, now));
        },
        [=](budget_reserved_elsewhere& m) {
            self->state.ledger.count({m.account, &m.budget}, m.n, clock(self->clock().now()));
        },
    };
}

} // namespace

budget_keeper_actor spawn_budget_keeper(caf::actor_system& sys, wall_clock clock) {
    return sys.spawn(budget_keeper, std::move(clock));
}

} // namespace gate::actors
