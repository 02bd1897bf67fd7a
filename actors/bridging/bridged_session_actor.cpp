#include "actors/bridging/bridged_session_actor.hpp"

#include "actors/bridging/bridged_session.hpp"

#include <caf/all.hpp>

namespace gate::actors {

namespace {

struct bridged_state {
    bridged_session_args args;
    bridged_session session;
    bool timer_armed = false; // one bridged_idle_check at a time
    bool told_idle = false;   // the keeper was told; the next event clears it
    std::uint64_t seen = 0;   // events from the keeper handled
    static inline const char* name = "gate.bridged_session";
};

using self_ptr = bridged_session_actor::stateful_pointer<bridged_state>;

// Arms the idle check for when the session may end (a later use moves that later: the check
// then finds it busy or early and re-arms).
void arm(self_ptr self) {
    auto& st = self->state;
    if (st.timer_armed || st.told_idle)
        return;
    auto due = st.session.idle_at(st.args.idle);
    if (!due)
        return; // busy: the event that frees it arms the timer
    auto now = self->clock().now();
    st.timer_armed = true;
    self->delayed_send(self, *due > now ? *due - now : std::chrono::steady_clock::duration{0},
                       bridged_idle_check{});
}

// An event from the keeper: counted, and whatever idleness was reported is void.
void heard(self_ptr self) {
    ++self->state.seen;
    self->state.told_idle = false;
}

void retire(self_ptr self) {
    if (self->state.args.retire)
        self->state.args.retire({self->state.args.key});
    self->quit();
}

} // namespace

namespace {

bridged_session_actor::behavior_type bridged(self_ptr self, bridged_session_args args) {
    self->state.args = std::move(args);
    auto now = [self] { return self->clock().now(); };
    auto& s = self->state.session;
    s.touch(now());
    for (std::size_t i = 0; i < self->state.args.streams; ++i)
        s.listening(true, now());
    arm(self);
    return {
        [=](bridge_used&) {
            heard(self);
            self->state.session.touch(now());
            arm(self);
        },
        [=](bridge_call_started& m) {
            heard(self);
            self->state.session.call_started(m.client_id, std::move(m.upstream_id), now());
        },
        [=](bridge_call_ended& m) {
            heard(self);
            self->state.session.call_ended(m.client_id, now());
            arm(self);
        },
        [=](bridge_cancel_lookup& m) {
            auto id = self->state.session.upstream_id(m.client_id);
            m.reply(id ? std::optional(call_target{self->state.args.key.upstream, std::move(*id)})
                       : std::nullopt);
        },
        [=](bridge_subscription& m) {
            heard(self);
            self->state.session.subscribed(m.subscribed);
            self->state.session.touch(now());
            arm(self);
        },
        [=](bridge_listening& m) {
            heard(self);
            self->state.session.listening(m.open, now());
            arm(self);
        },
        [=](bridged_idle_check&) {
            auto& st = self->state;
            st.timer_armed = false;
            auto due = st.session.idle_at(st.args.idle);
            if (due && now() >= *due) {
                // The keeper decides: an event it sent meanwhile keeps this session.
                st.told_idle = true;
                self->send(st.args.keeper,
                           bridged_idle{st.args.key.session, st.args.key.upstream, st.seen});
                return;
            }
            arm(self);
        },
        [=](bridged_end& m) {
            if (m.retire)
                return retire(self);
            self->quit();
        },
    };
}

} // namespace

bridged_session_actor spawn_bridged_session(caf::actor_system& sys, bridged_session_args args) {
    return sys.spawn(bridged, std::move(args));
}

} // namespace gate::actors
