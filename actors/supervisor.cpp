#include "actors/supervisor.hpp"

#include "actors/guard_board.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace gate {

namespace {

struct supervised_upstream {
    std::shared_ptr<guard_board> board;
    upstream_actor actor;
};

struct supervisor_state {
    supervised what;
    // The process's one cursor key, given to every router it spawns (respawns included).
    protocol::cursor_codec cursors = protocol::cursor_codec::with_random_key();
    std::shared_ptr<actor_directory> directory;
    actor_set current;
    // Shared with the supervisor's exit functor, which stops them.
    std::shared_ptr<std::vector<supervised_upstream>> upstreams =
        std::make_shared<std::vector<supervised_upstream>>();
    static inline const char* name = "gate.supervisor";
};

using self_ptr = supervisor_actor::stateful_pointer<supervisor_state>;

void publish(self_ptr self) {
    self->state.directory->store(std::make_shared<const actor_set>(self->state.current));
}

// A reload changed the audit section: events go to a sink built from it from now on; the old
// sink writes what it was already sent, then stops (not a failure: it is not respawned).
void replace_audit(self_ptr self, const std::optional<config::audit>& audit) {
    auto& st = self->state;
    auto old = st.current.audit;
    st.what.audit = audit;
    st.current.audit = spawn_audit(self->system(), audit, st.what.audit_outlet_);
    if (st.current.audit)
        self->monitor(st.current.audit.sink());
    publish(self);
    if (old) {
        self->demonitor(old.sink().address());
        self->send(old.sink(), audit_close{});
    }
}

// A reload changed the tracing section: spans go to a sink built from it from now on; the old
// one exports what it holds (briefly), then stops.
void replace_spans(self_ptr self, const std::optional<config::tracing>& tracing) {
    auto& st = self->state;
    auto old = st.current.spans;
    st.current.spans = spawn_span_sink(self->system(), tracing, st.what.span_outlet_);
    if (st.current.spans)
        self->monitor(st.current.spans);
    publish(self);
    if (old) {
        self->demonitor(old.address());
        self->send(old, batch_close{});
    }
}

// The actors of `what`, spawned unmonitored (the supervisor monitors what it is given).

actor_set spawn_children(caf::actor_system& sys, const supervised& what,
                         const protocol::cursor_codec& cursors) {
    actor_set set{{},
                  spawn_task_keeper(sys, what.task_sweep),
                  spawn_bridge_keeper(sys, what.retire, what.bridge_timing_),
                  spawn_audit(sys, what.audit, what.audit_outlet_),
                  spawn_limiter(sys),
                  spawn_budget_keeper(sys),
                  spawn_span_sink(sys, what.snap->doc->tracing, what.span_outlet_)};
    for (auto& r : set.routers)
        r = spawn_router(sys, what.snap, cursors);
    return set;
}

// Keeps the actors of boards still in `boards`, spawns one for each new board and stops those
// whose board is gone (their upstream was retired: its in-flight calls fail open).
void adopt(self_ptr self, const std::vector<std::shared_ptr<guard_board>>& boards) {
    auto& ups = *self->state.upstreams;
    std::vector<supervised_upstream> next;
    for (const auto& b : boards) {
        auto kept = std::find_if(ups.begin(), ups.end(), [&](auto& u) { return u.board == b; });
        if (kept != ups.end()) {
            next.push_back(std::move(*kept));
            ups.erase(kept);
            continue;
        }
        auto actor = spawn_upstream_actor(self->system(), b);
        self->monitor(actor);
        next.push_back({b, std::move(actor)});
    }
    for (auto& gone : ups) {
        self->demonitor(gone.actor.address());
        self->send_exit(gone.actor, caf::exit_reason::user_shutdown);
        gone.board->attach(upstream_actor{});
    }
    ups = std::move(next);
}

// Respawns the upstream actor that stopped; false when `source` was none of them.
bool respawn_upstream(self_ptr self, const caf::actor_addr& source, const caf::error& reason) {
    for (auto& u : *self->state.upstreams)
        if (u.actor && u.actor.address() == source) {
            u.actor = spawn_upstream_actor(self->system(), u.board);
            self->monitor(u.actor);
            spdlog::error("upstream actor {} stopped ({}); respawned with its guards rebuilt",
                          u.board->config().id, to_string(reason));
            return true;
        }
    return false;
}

supervisor_actor::behavior_type supervisor(self_ptr self, supervised what,
                                           std::shared_ptr<actor_directory> directory,
                                           protocol::cursor_codec cursors) {
    self->state.cursors = std::move(cursors);
    self->state.what = std::move(what);
    self->state.directory = std::move(directory);
    self->state.current = *self->state.directory->load();
    const auto& cur = self->state.current;
    for (const auto& r : cur.routers)
        self->monitor(r);
    self->monitor(cur.tasks);
    self->monitor(cur.bridges);
    if (cur.audit)
        self->monitor(cur.audit.sink());
    if (cur.limiter)
        self->monitor(cur.limiter);
    self->monitor(cur.budgets);
    if (cur.spans)
        self->monitor(cur.spans);
    self->set_down_handler([=](caf::down_msg& down) {
        auto& cur = self->state.current;
        auto failed = [&](const auto& handle) { return handle && handle.address() == down.source; };
        auto& sys = self->system();
        const auto& w = self->state.what;
        const char* which = nullptr;
        for (auto& r : cur.routers)
            if (failed(r)) {
                r = spawn_router(sys, w.snap, self->state.cursors);
                self->monitor(r);
                which = "router";
            }
        if (which) {
            // a router shard, respawned above
        } else if (failed(cur.tasks)) {
            cur.tasks = spawn_task_keeper(sys, w.task_sweep);
            self->monitor(cur.tasks);
            which = "task keeper";
        } else if (failed(cur.bridges)) {
            cur.bridges = spawn_bridge_keeper(sys, w.retire, w.bridge_timing_);
            self->monitor(cur.bridges);
            which = "bridge keeper";
        } else if (cur.audit && failed(cur.audit.sink())) {
            cur.audit = spawn_audit(sys, w.audit, w.audit_outlet_);
            self->monitor(cur.audit.sink());
            which = "audit sink";
        } else if (failed(cur.limiter)) {
            cur.limiter = spawn_limiter(sys);
            self->monitor(cur.limiter);
            which = "limiter";
        } else if (failed(cur.budgets)) {
            // Starts with nothing spent: what this instance had used of its allowances is
            // lost (docs/architecture.md, what a restart loses).
            cur.budgets = spawn_budget_keeper(sys);
            self->monitor(cur.budgets);
            which = "budget keeper";
        } else if (failed(cur.spans)) {
            cur.spans = spawn_span_sink(sys, w.snap->doc->tracing, w.span_outlet_);
            self->monitor(cur.spans);
            which = "span sink";
        }
        if (!which) {
            respawn_upstream(self, down.source, down.reason);
            return;
        }
        spdlog::error("actor {} stopped ({}); respawned from snapshot {}", which,
                      to_string(down.reason), self->state.what.snap->version);
        publish(self);
    });
    // The supervisor's end is its actors' end (it respawns nothing once it is gone).
    self->attach_functor([dir = self->state.directory, ups = self->state.upstreams] {
        // The boards forget their actors first: nothing on the io thread (a probe ticket
        // destroyed with its coroutine at shutdown) sends to an actor that is going away.
        for (const auto& u : *ups) {
            u.board->attach(upstream_actor{});
            caf::anon_send_exit(u.actor, caf::exit_reason::user_shutdown);
        }
        auto c = dir->load();
        for (const auto& r : c->routers)
            caf::anon_send_exit(r, caf::exit_reason::user_shutdown);
        caf::anon_send_exit(c->tasks, caf::exit_reason::user_shutdown);
        caf::anon_send_exit(c->bridges, caf::exit_reason::user_shutdown);
        if (c->audit)
            caf::anon_send_exit(c->audit.sink(), caf::exit_reason::user_shutdown);
        if (c->limiter)
            caf::anon_send_exit(c->limiter, caf::exit_reason::user_shutdown);
        caf::anon_send_exit(c->budgets, caf::exit_reason::user_shutdown);
        if (c->spans)
            caf::anon_send_exit(c->spans, caf::exit_reason::user_shutdown);
    });
    return {
        [=](reload_snapshot& m) {
            bool tracing_changed = !(m.snap->doc->tracing == self->state.what.snap->doc->tracing);
            self->state.what.snap = m.snap;
            for (const auto& r : self->state.current.routers)
                self->send(r, replace_snapshot{m.snap});
            adopt(self, m.upstreams);
            if (!(m.snap->doc->audit == self->state.what.audit))
                replace_audit(self, m.snap->doc->audit);
            if (tracing_changed)
                replace_spans(self, m.snap->doc->tracing);
        },
        [=](adopt_upstreams& m) { adopt(self, m.upstreams); },
    };
}

} // namespace

supervisor_actor spawn_supervisor(caf::actor_system& sys, supervised what,
                                  std::shared_ptr<actor_directory> directory) {
    auto cursors = what.cursor_key ? protocol::cursor_codec(*what.cursor_key)
                                   : protocol::cursor_codec::with_random_key();
    directory->store(std::make_shared<const actor_set>(spawn_children(sys, what, cursors)));
    return sys.spawn(supervisor, std::move(what), std::move(directory), cursors);
}

} // namespace gate
