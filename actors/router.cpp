#include "actors/router.hpp"

#include "protocol/json_rpc.hpp"

#include <caf/all.hpp>

namespace gate {

namespace {

struct router_state {
    std::shared_ptr<const snapshot> snap;
    // One key for the process: cursors survive a reload and are then refused as expired.
    protocol::cursor_codec cursors = protocol::cursor_codec::with_random_key();
    std::optional<federation> fed;
    static inline const char* name = "gate.router";
};

router_actor::behavior_type router(router_actor::stateful_pointer<router_state> self,
                                   std::shared_ptr<const snapshot> snap) {
    self->state.snap = snap;
    self->state.fed.emplace(snap, self->state.cursors);
    auto now = [self] { return self->clock().now(); };
    return {
        [=](plan_list& m) {
            m.reply(list_plan{self->state.snap, self->state.fed->stale(m.kind, now())});
        },
        [=](complete_list& m) {
            // Indexes of a list fetched before a reload mean other upstreams now: store nothing.
            if (m.snap != self->state.snap) {
                m.reply(route_error{protocol::error_code::internal_error,
                                    "the configuration was reloaded during this request; retry",
                                    ""});
                return;
            }
            auto& fed = *self->state.fed;
            for (auto& f : m.fetched) {
                if (f.items)
                    fed.store(f.upstream, m.kind, std::move(*f.items), now());
                else
                    fed.drop(f.upstream, m.kind);
            }
            m.reply(fed.page(m.kind, m.cursor, m.caller));
        },
        [=](page_tasks& m) {
            if (m.snap != self->state.snap) {
                m.reply(route_error{protocol::error_code::internal_error,
                                    "the configuration was reloaded during this request; retry",
                                    ""});
                return;
            }
            m.reply(
                self->state.fed->page_of(protocol::list_kind::tasks, m.merged, m.cursor, m.caller));
        },
        [=](resolve_call& m) {
            m.reply(
                routed{self->state.snap, self->state.fed->resolve(m.method, std::move(m.params))});
        },
        [=](invalidate_upstream& m) { self->state.fed->invalidate(m.upstream); },
        [=](replace_snapshot& m) {
            self->state.snap = m.snap;
            self->state.fed.emplace(m.snap, self->state.cursors);
        },
    };
}

} // namespace

router_actor spawn_router(caf::actor_system& sys, std::shared_ptr<const snapshot> snap) {
    return sys.spawn(router, std::move(snap));
}

} // namespace gate
