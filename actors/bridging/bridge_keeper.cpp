#include "actors/bridging/bridge_keeper.hpp"

#include "actors/bridging/bridge_ledger.hpp"
#include "actors/bridging/bridged_session_actor.hpp"

#include <caf/all.hpp>
#include <map>
#include <memory>

namespace gate::actors {

namespace {

using bridge_key = std::pair<std::string, std::string>; // (session, upstream)
struct child_entry {
    bridged_session_actor actor;
    std::uint64_t sent = 0; // events sent to it
};
using children = std::map<bridge_key, child_entry>;

struct keeper_state {
    bridge_ledger ledger;
    // Shared with the exit functor, which stops them when the keeper stops.
    std::shared_ptr<children> bridged = std::make_shared<children>();
    std::map<std::string, std::size_t> listening; // session -> open GET streams
    static inline const char* name = "gate.bridge_keeper";
};

using self_ptr = bridge_keeper_actor::stateful_pointer<keeper_state>;

// Every bridged-session actor of one downstream session.
template <class F> void each_of_session(keeper_state& st, const std::string& session, F f) {
    for (auto it = st.bridged->lower_bound({session, std::string()});
         it != st.bridged->end() && it->first.first == session; ++it)
        f(it->second);
}

} // namespace

namespace {

// What the keeper does for each message, over its state; one copy per behavior handler.
struct keeper_work {
    self_ptr self;
    retire_bridges retire;
    bridge_timing timing;

    // The pair's actor, spawned on its first event.
    child_entry& child(const std::string& session, const std::string& upstream) const {
        auto& st = self->state;
        auto it = st.bridged->find({session, upstream});
        if (it != st.bridged->end())
            return it->second;
        auto streams = st.listening.contains(session) ? st.listening[session] : 0;
        auto spawned = spawn_bridged_session(
            self->system(),
            bridged_session_args{
                {session, upstream}, bridge_keeper_actor(self), timing.idle, retire, streams});
        self->monitor(spawned);
        return st.bridged->emplace(bridge_key{session, upstream}, child_entry{std::move(spawned)})
            .first->second;
    }

    // Every event to a child is counted, so its report of idleness can be checked against
    // what is still on its way to it.
    template <class Message> void tell(child_entry& c, Message message) const {
        ++c.sent;
        self->send(c.actor, std::move(message));
    }

    // Ends the pairs `which` selects (their actors retire them, or just stop).
    template <class Which> void end_where(Which which, bool retire_them) const {
        auto& kids = *self->state.bridged;
        for (auto it = kids.begin(); it != kids.end();) {
            if (!which(it->first)) {
                ++it;
                continue;
            }
            self->demonitor(it->second.actor.address());
            self->send(it->second.actor, bridged_end{retire_them});
            it = kids.erase(it);
        }
    }

    void apply(bridge_used& m) const { tell(child(m.session, m.upstream), std::move(m)); }
    void apply(bridge_call_started& m) const {
        if (self->state.ledger.call_started(m.session, m.client_id, m.upstream))
            tell(child(m.session, m.upstream), std::move(m));
    }
    void apply(bridge_call_ended& m) const {
        auto& st = self->state;
        if (auto up = st.ledger.call_ended(m.session, m.client_id))
            if (auto it = st.bridged->find({m.session, *up}); it != st.bridged->end())
                tell(it->second, std::move(m));
    }
    void apply(bridge_subscription& m) const {
        auto& ledger = self->state.ledger;
        bool changed = m.subscribed ? ledger.subscribe(m.session, m.upstream, m.uri)
                                    : ledger.unsubscribe(m.session, m.upstream, m.uri);
        if (changed)
            tell(child(m.session, m.upstream), std::move(m));
    }
    void apply(bridge_session_ended& m) const {
        auto& st = self->state;
        st.ledger.end_session(m.session);
        st.listening.erase(m.session);
        end_where([&](const bridge_key& k) { return k.first == m.session; }, true);
    }
    void apply(bridge_listening& m) const {
        auto& st = self->state;
        auto& n = st.listening[m.session];
        n = m.open ? n + 1 : (n > 0 ? n - 1 : 0);
        if (n == 0)
            st.listening.erase(m.session);
        each_of_session(st, m.session, [&](auto& c) { tell(c, m); });
    }
    void apply(bridge_upstream_gone& m) const {
        self->state.ledger.forget_upstream(m.upstream);
        end_where([&](const bridge_key& k) { return k.second == m.upstream; }, false);
    }
    void apply(bridge_event& e) const {
        std::visit([&](auto& m) { apply(m); }, e);
    }

    // The call's own bridged session knows its upstream-side id.
    void cancel_lookup(bridge_cancel_lookup& m) const {
        auto& st = self->state;
        auto up = st.ledger.call_upstream(m.session, m.client_id);
        auto it = up ? st.bridged->find({m.session, *up}) : st.bridged->end();
        if (it == st.bridged->end())
            return m.reply(std::optional<call_target>{});
        self->send(it->second.actor, std::move(m)); // a question: not counted as an event
    }

    // Retired only if it is the pair's current actor and every event sent to it was handled
    // when it found itself idle; otherwise what is on its way keeps it.
    void idle(const bridged_idle& m) const {
        auto& kids = *self->state.bridged;
        auto it = kids.find({m.session, m.upstream});
        auto from = caf::actor_cast<caf::actor_addr>(self->current_sender());
        if (it == kids.end() || it->second.actor.address() != from || it->second.sent != m.seen)
            return;
        auto actor = std::move(it->second.actor);
        kids.erase(it);
        self->demonitor(actor.address());
        self->send(actor, bridged_end{true});
    }
};

bridge_keeper_actor::behavior_type keeper(self_ptr self, retire_bridges retire,
                                          bridge_timing timing) {
    self->set_down_handler([self](caf::down_msg& down) {
        auto& kids = *self->state.bridged;
        std::erase_if(kids, [&](const auto& e) { return e.second.actor.address() == down.source; });
    });
    self->attach_functor([kids = self->state.bridged] {
        for (const auto& [key, child] : *kids)
            caf::anon_send_exit(child.actor, caf::exit_reason::user_shutdown);
    });
    keeper_work w{self, std::move(retire), timing};
    return {
        [w](bridge_batch& b) {
            for (auto& e : b.events)
                w.apply(e);
        },
        [w](bridge_used& m) { w.apply(m); },
        [w](bridge_call_started& m) { w.apply(m); },
        [w](bridge_call_ended& m) { w.apply(m); },
        [w](bridge_cancel_lookup& m) { w.cancel_lookup(m); },
        [w](bridge_subscription& m) { w.apply(m); },
        [w](bridge_updated& m) {
            m.reply(w.self->state.ledger.subscribers(m.upstream, m.uri, m.origin));
        },
        [w](bridge_session_ended& m) { w.apply(m); },
        [w](bridged_idle& m) { w.idle(m); },
    };
}

} // namespace

bridge_keeper_actor spawn_bridge_keeper(caf::actor_system& sys, retire_bridges retire,
                                        bridge_timing timing) {
    return sys.spawn(keeper, std::move(retire), timing);
}

} // namespace gate::actors
