#include "actors/bridge_keeper.hpp"

#include <caf/all.hpp>
#include <type_traits>

namespace gate {

namespace {

struct keeper_state {
    bridge_ledger ledger;
    static inline const char* name = "gate.bridge_keeper";
};

} // namespace

} // namespace gate

namespace gate {

namespace {

bridge_keeper_actor::behavior_type keeper(bridge_keeper_actor::stateful_pointer<keeper_state> self,
                                          retire_bridges retire, bridge_timing timing) {
    auto now = [self] { return self->clock().now(); };
    auto hand_over = [retire](std::vector<retired_bridge> gone) {
        if (!gone.empty() && retire)
            retire(std::move(gone));
    };
    self->delayed_send(self, timing.sweep_every, bridge_sweep{});
    auto& ledger = self->state.ledger;
    auto apply = [=, &ledger](bridge_event& e) {
        std::visit(
            [&](auto& m) {
                using T = std::decay_t<decltype(m)>;
                if constexpr (std::is_same_v<T, bridge_used>)
                    ledger.touch(m.session, m.upstream, now());
                else if constexpr (std::is_same_v<T, bridge_call_started>)
                    ledger.call_started(m.session, m.client_id, m.upstream,
                                        std::move(m.upstream_id), now());
                else if constexpr (std::is_same_v<T, bridge_call_ended>)
                    ledger.call_ended(m.session, m.client_id, now());
                else if constexpr (std::is_same_v<T, bridge_subscription>) {
                    if (m.subscribed)
                        ledger.subscribe(m.session, m.upstream, m.uri);
                    else
                        ledger.unsubscribe(m.session, m.upstream, m.uri);
                } else if constexpr (std::is_same_v<T, bridge_session_ended>)
                    hand_over(ledger.end_session(m.session));
                else if constexpr (std::is_same_v<T, bridge_listening>)
                    ledger.listening(m.session, m.open, now());
                else if constexpr (std::is_same_v<T, bridge_upstream_gone>)
                    ledger.forget_upstream(m.upstream);
            },
            e);
    };
    return {
        [=](bridge_batch& b) {
            for (auto& e : b.events)
                apply(e);
        },
        [=](bridge_used& m) {
            bridge_event e{std::move(m)};
            apply(e);
        },
        [=](bridge_call_started& m) {
            bridge_event e{std::move(m)};
            apply(e);
        },
        [=](bridge_call_ended& m) {
            bridge_event e{std::move(m)};
            apply(e);
        },
        [=](bridge_cancel_lookup& m) {
            m.reply(self->state.ledger.cancel_target(m.session, m.client_id));
        },
        [=](bridge_subscription& m) {
            bridge_event e{std::move(m)};
            apply(e);
        },
        [=](bridge_updated& m) {
            m.reply(self->state.ledger.subscribers(m.upstream, m.uri, m.origin));
        },
        [=](bridge_session_ended& m) {
            bridge_event e{std::move(m)};
            apply(e);
        },
        [=](bridge_sweep&) {
            hand_over(self->state.ledger.expire_idle(now(), timing.idle));
            self->delayed_send(self, timing.sweep_every, bridge_sweep{});
        },
    };
}

} // namespace

bridge_keeper_actor spawn_bridge_keeper(caf::actor_system& sys, retire_bridges retire,
                                        bridge_timing timing) {
    return sys.spawn(keeper, std::move(retire), timing);
}

} // namespace gate
