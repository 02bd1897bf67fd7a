#include "actors/federation/router.hpp"

#include "protocol/json_rpc.hpp"

#include <caf/all.hpp>
#include <deque>

namespace gate::actors {

namespace {

// How many snapshots keep their federation (caches, resource ownership) for the requests
// that loaded them: the current one and the ones a reload replaced just before it. A
// request older still is served on a federation made for it alone (no cache).
constexpr std::size_t kept_snapshots = 3;

struct router_state {
    // One key for the process: cursors survive a reload and are then refused as expired.
    std::optional<protocol::cursor_codec> cursors;
    std::deque<federation> recent; // newest first: recent.front() is the current snapshot's
    static inline const char* name = "gate.router";

    // The federation of `snap`: kept, or made for this one question.
    federation& of(const std::shared_ptr<const snapshot>& snap, std::optional<federation>& temp) {
        for (auto& f : recent)
            if (f.snapshot_ptr() == snap)
                return f;
        return temp.emplace(snap, *cursors);
    }
};

// What a list's fetches brought, into the federation's cache (a failed upstream's dropped).
void store_fetched(federation& fed, protocol::list_kind kind, protocol::client_profile profile,
                   std::vector<fetched_list>& fetched, time_point now) {
    for (auto& f : fetched) {
        if (f.items)
            fed.store(f.upstream, kind, profile, std::move(*f.items), now, std::move(f.sources));
        else
            fed.drop(f.upstream, kind, profile);
    }
}

router_actor::behavior_type router(router_actor::stateful_pointer<router_state> self,
                                   std::shared_ptr<const snapshot> snap,
                                   protocol::cursor_codec cursors) {
    self->state.cursors.emplace(std::move(cursors));
    self->state.recent.emplace_front(snap, *self->state.cursors);
    auto now = [self] { return self->clock().now(); };
    return {
        [=](plan_list& m) {
            std::optional<federation> temp;
            auto& fed = self->state.of(m.snap, temp);
            m.reply(list_plan{m.snap, fed.stale(m.kind, m.profile, now()), m.profile});
        },
        [=](complete_list& m) {
            std::optional<federation> temp;
            auto& fed = self->state.of(m.snap, temp);
            store_fetched(fed, m.kind, m.profile, m.fetched, now());
            if (m.searching)
                m.reply(fed.page_searching(m.profile, *m.searching, m.cursor, m.caller, m.who.get(),
                                           m.tenant));
            else
                m.reply(fed.page(m.kind, m.profile, m.cursor, m.caller, m.who.get(), m.tenant));
        },
        [=](query_tools& m) {
            std::optional<federation> temp;
            auto& fed = self->state.of(m.snap, temp);
            store_fetched(fed, protocol::list_kind::tools, m.profile, m.fetched, now());
            if (m.names) {
                auto named = fed.tools_named(m.profile, *m.names, m.who.get(), m.tenant);
                m.reply(found_tools{std::move(named.tools), std::move(named.unknown)});
            } else {
                m.reply(found_tools{
                    fed.search_tools(m.profile, m.query, m.limit, m.who.get(), m.tenant), {}});
            }
        },
        [=](page_tasks& m) {
            std::optional<federation> temp;
            m.reply(self->state.of(m.snap, temp)
                        .page_of(protocol::list_kind::tasks, m.merged, m.cursor, m.caller));
        },
        [=](resolve_call& m) {
            std::optional<federation> temp;
            m.reply(routed{
                m.snap,
                self->state.of(m.snap, temp).resolve(m.method, std::move(m.params), m.tenant)});
        },
        [=](read_cached_lists& m) {
            std::optional<federation> temp;
            std::vector<fetched_list> lists;
            for (auto& [upstream, items] : self->state.of(m.snap, temp).cached(m.kind, m.profile))
                lists.push_back({upstream, std::move(items)});
            m.reply(std::move(lists));
        },
        [=](invalidate_upstream& m) {
            // An upstream's list_changed: its lists are stale in every kept snapshot.
            for (auto& f : self->state.recent)
                f.invalidate_id(m.upstream);
        },
        [=](replace_snapshot& m) {
            auto& recent = self->state.recent;
            recent.emplace_front(m.snap, *self->state.cursors);
            while (recent.size() > kept_snapshots)
                recent.pop_back();
        },
    };
}

} // namespace

router_actor spawn_router(caf::actor_system& sys, std::shared_ptr<const snapshot> snap,
                          protocol::cursor_codec cursors) {
    return sys.spawn(router, std::move(snap), std::move(cursors));
}

} // namespace gate::actors
