#include "actors/federation/task_keeper.hpp"

#include <caf/all.hpp>

namespace gate::actors {

namespace {

struct task_keeper_state {
    task_registry tasks;
    static inline const char* name = "gate.task_keeper";
};

task_keeper_actor::behavior_type
task_keeper(task_keeper_actor::stateful_pointer<task_keeper_state> self,
            std::chrono::steady_clock::duration sweep_every) {
    auto now = [self] { return self->clock().now(); };
    self->delayed_send(self, sweep_every, task_sweep{});
    return {
        [=](task_pin& m) { self->state.tasks.pin(m.task_id, m.principal, m.upstream, now()); },
        [=](task_locate& m) { self->state.tasks.locate(m.task_id, m.upstream, now()); },
        [=](task_find& m) { m.reply(self->state.tasks.find(m.task_id, m.principal, now())); },
        [=](task_count& m) { m.reply(self->state.tasks.size()); },
        [=](task_sweep&) {
            self->state.tasks.expire(now());
            self->delayed_send(self, sweep_every, task_sweep{});
        },
    };
}

} // namespace

task_keeper_actor spawn_task_keeper(caf::actor_system& sys,
                                    std::chrono::steady_clock::duration sweep_every) {
    return sys.spawn(task_keeper, sweep_every);
}

} // namespace gate::actors
