#include "actors/supervision/supervisor.hpp"

#include "actors/guards/guard_board.hpp"
#include "actors/message_types.hpp"
#include "actors/own_timers.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace gate::actors {

namespace {

struct supervised_upstream {
    std::shared_ptr<guard_board> board;
    upstream_actor actor; // the last one spawned (a dead handle while a respawn waits)
    restart_intensity intensity;
    bool given_up = false; // crashed past its intensity: left stopped until a reload
};

// The process-wide actors by slot: the router shards, then one slot each.
constexpr std::size_t tasks_slot = router_shards;
constexpr std::size_t bridges_slot = tasks_slot + 1;
constexpr std::size_t audit_slot = bridges_slot + 1;
constexpr std::size_t limiter_slot = audit_slot + 1;
constexpr std::size_t budgets_slot = limiter_slot + 1;
constexpr std::size_t spans_slot = budgets_slot + 1;
constexpr std::size_t breakers_slot = spans_slot + 1;
constexpr std::size_t singleton_slots = breakers_slot + 1;
constexpr std::size_t upstream_kind = supervised_kinds.size() - 1;

// Its index in supervised_kinds (the metric label).
std::size_t kind_of(std::size_t slot) {
    return slot < router_shards ? 0 : slot - router_shards + 1;
}
std::string slot_name(std::size_t slot) {
    if (slot < router_shards)
        return "router shard " + std::to_string(slot);
    auto kind = supervised_kinds[kind_of(slot)];
    std::string name(kind);
    std::replace(name.begin(), name.end(), '_', ' ');
    return name;
}

// The supervisor's own timer (actors/own_timers.hpp): a paused restart is due. `dead` is the
// actor that stopped; when its slot (or its upstream's board) holds another by then (a reload
// replaced the sink, retired the upstream), nothing is respawned.
struct respawn_due {
    std::size_t slot = 0;
    std::shared_ptr<guard_board> board; // an upstream's actor; null: the process-wide `slot`
    caf::actor_addr dead;
    caf::error reason;
    restart_intensity::restart restart;
};

BOOST_DESCRIBE_STRUCT(respawn_due, (), (slot, board, dead, reason, restart))

// CAF finds a message's inspect and to_string by its namespace (actors/message_inspection.hpp):
// an anonymous namespace's types look only there.
using actors::inspect;
using actors::to_string;

struct supervisor_state {
    supervised what;
    // The process's one cursor key, given to every router it spawns (respawns included).
    protocol::cursor_codec cursors = protocol::cursor_codec::with_random_key();
    std::shared_ptr<actor_directory> directory;
    actor_set current;
    std::array<restart_intensity, singleton_slots> singletons;
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
                  spawn_span_sink(sys, what.snap->doc->tracing, what.span_outlet_),
                  spawn_breaker_actor(sys, {})}; // the upstreams come with adopt
    for (auto& r : set.routers)
        r = spawn_router(sys, what.snap, cursors);
    return set;
}

caf::actor_addr address_of(const actor_set& set, std::size_t slot) {
    auto addr = [](const auto& handle) { return handle ? handle.address() : caf::actor_addr{}; };
    if (slot < router_shards)
        return addr(set.routers[slot]);
    switch (slot) {
    case tasks_slot:
        return addr(set.tasks);
    case bridges_slot:
        return addr(set.bridges);
    case audit_slot:
        return set.audit ? addr(set.audit.sink()) : caf::actor_addr{};
    case limiter_slot:
        return addr(set.limiter);
    case budgets_slot:
        return addr(set.budgets);
    case spans_slot:
        return addr(set.spans);
    default:
        return addr(set.breakers);
    }
}

std::optional<std::size_t> slot_of(const actor_set& set, const caf::actor_addr& source) {
    for (std::size_t slot = 0; slot < singleton_slots; ++slot)
        if (auto a = address_of(set, slot); a && a == source)
            return slot;
    return std::nullopt;
}

std::vector<std::shared_ptr<guard_board>> boards_of(const std::vector<supervised_upstream>& ups) {
    std::vector<std::shared_ptr<guard_board>> boards;
    for (const auto& u : ups)
        boards.push_back(u.board);
    return boards;
}

// Spawns the actor of `slot` afresh from the current snapshot, monitored and published.
void respawn_slot(self_ptr self, std::size_t slot) {
    auto& st = self->state;
    auto& cur = st.current;
    auto& sys = self->system();
    const auto& w = st.what;
    auto watch = [&](auto& handle, auto fresh) {
        handle = std::move(fresh);
        if (handle)
            self->monitor(handle);
    };
    if (slot < router_shards)
        watch(cur.routers[slot], spawn_router(sys, w.snap, st.cursors));
    else if (slot == tasks_slot)
        watch(cur.tasks, spawn_task_keeper(sys, w.task_sweep));
    else if (slot == bridges_slot)
        watch(cur.bridges, spawn_bridge_keeper(sys, w.retire, w.bridge_timing_));
    else if (slot == audit_slot) {
        cur.audit = spawn_audit(sys, w.audit, w.audit_outlet_);
        if (cur.audit)
            self->monitor(cur.audit.sink());
    } else if (slot == limiter_slot)
        watch(cur.limiter, spawn_limiter(sys));
    else if (slot == budgets_slot)
        // Starts with nothing spent: what this instance had used of its allowances is lost
        // (docs/architecture.md, what a restart loses).
        watch(cur.budgets, spawn_budget_keeper(sys));
    else if (slot == spans_slot)
        watch(cur.spans, spawn_span_sink(sys, w.snap->doc->tracing, w.span_outlet_));
    else
        // Every circuit starts closed (docs/architecture.md, what a restart loses).
        watch(cur.breakers, spawn_breaker_actor(sys, boards_of(*st.upstreams)));
    publish(self);
}

// " (restart 2 of at most 5 within 60 s, after 100 ms)": where a restart stands.
std::string restart_note(const restart_intensity::restart& r, const restart_policy& p) {
    auto note = " (restart " + std::to_string(r.count) + " of at most " +
                std::to_string(p.max_restarts) + " within " +
                std::to_string(std::chrono::duration_cast<std::chrono::seconds>(p.within).count()) +
                " s";
    if (r.pause.count() > 0)
        note += ", after " + std::to_string(r.pause.count()) + " ms";
    return note + ")";
}

// Keeps the actors of boards still in `boards`, spawns one for each new board and stops those
// whose board is gone (their upstream was retired: its in-flight calls fail open). An
// upstream whose actor was given up on gets a fresh start: the reload is the operator's retry.
void adopt(self_ptr self, const std::vector<std::shared_ptr<guard_board>>& boards) {
    auto& ups = *self->state.upstreams;
    const auto& policy = self->state.what.restarts;
    std::vector<supervised_upstream> next;
    for (const auto& b : boards) {
        auto kept = std::find_if(ups.begin(), ups.end(), [&](auto& u) { return u.board == b; });
        if (kept != ups.end()) {
            if (kept->given_up) {
                kept->given_up = false;
                kept->intensity = restart_intensity(policy);
                kept->actor = spawn_upstream_actor(self->system(), b);
                self->monitor(kept->actor);
                spdlog::info("upstream {}: its actor gets a fresh start with the reload",
                             b->config().id);
            }
            next.push_back(std::move(*kept));
            ups.erase(kept);
            continue;
        }
        auto actor = spawn_upstream_actor(self->system(), b);
        self->monitor(actor);
        next.push_back({b, std::move(actor), restart_intensity(policy)});
    }
    for (auto& gone : ups) {
        self->demonitor(gone.actor.address());
        self->send_exit(gone.actor, caf::exit_reason::user_shutdown);
        gone.board->attach(upstream_actor{});
        gone.board->attach_breaker(breaker_actor{});
    }
    ups = std::move(next);
    // The breaker actor keeps the circuits of kept upstreams, starts the new ones closed and
    // names itself on their boards.
    if (auto& breakers = self->state.current.breakers)
        self->send(breakers, breaker_boards{boards});
}

void respawn_when_due(self_ptr self, const respawn_due& m) {
    auto& st = self->state;
    const auto& policy = st.what.restarts;
    if (!m.board) {
        if (address_of(st.current, m.slot) != m.dead)
            return;
        respawn_slot(self, m.slot);
        ++st.what.tally->restarts[kind_of(m.slot)];
        spdlog::error("actor {} stopped ({}); respawned from snapshot {}{}", slot_name(m.slot),
                      to_string(m.reason), st.what.snap->version, restart_note(m.restart, policy));
        return;
    }
    for (auto& u : *st.upstreams)
        if (u.board == m.board && !u.given_up && u.actor && u.actor.address() == m.dead) {
            u.actor = spawn_upstream_actor(self->system(), u.board);
            self->monitor(u.actor);
            ++st.what.tally->restarts[upstream_kind];
            spdlog::error("upstream actor {} stopped ({}); respawned with its guards rebuilt{}",
                          u.board->config().id, to_string(m.reason),
                          restart_note(m.restart, policy));
            return;
        }
}

// A restart now, or after its pause on the supervisor's own timer.
void restart_later(self_ptr self, respawn_due m) {
    if (m.restart.pause.count() > 0)
        start_own_timer(self, m.restart.pause, std::move(m));
    else
        respawn_when_due(self, m);
}

std::int64_t within_seconds(const restart_policy& p) {
    return std::chrono::duration_cast<std::chrono::seconds>(p.within).count();
}

// A process-wide actor stopped: restarted within its intensity; past it, the supervisor
// stops, and the program hears it and exits non-zero.
void singleton_stopped(self_ptr self, std::size_t slot, const caf::error& reason) {
    auto& st = self->state;
    auto verdict = st.singletons[slot].stopped(self->clock().now());
    if (auto* r = std::get_if<restart_intensity::restart>(&verdict))
        return restart_later(self, {slot, nullptr, address_of(st.current, slot), reason, *r});
    ++st.what.tally->given_up[kind_of(slot)];
    auto count = std::get<restart_intensity::give_up>(verdict).count;
    spdlog::critical("actor {} stopped ({}) after {} restarts within {} s; the supervisor gives "
                     "up and stops",
                     slot_name(slot), to_string(reason), count, within_seconds(st.what.restarts));
    self->quit(caf::make_error(caf::sec::runtime_error,
                               "the " + slot_name(slot) + " crashed past its restart intensity"));
}

// An upstream's actor stopped: restarted within its intensity; past it, left stopped and its
// upstream refuses every call as unavailable until a reload.
void upstream_stopped(self_ptr self, const caf::actor_addr& source, const caf::error& reason) {
    auto& st = self->state;
    auto u = std::find_if(st.upstreams->begin(), st.upstreams->end(),
                          [&](auto& u) { return u.actor && u.actor.address() == source; });
    if (u == st.upstreams->end())
        return;
    u->board->attach(upstream_actor{}); // nothing asks the dead actor while its restart waits
    auto verdict = u->intensity.stopped(self->clock().now());
    if (auto* r = std::get_if<restart_intensity::restart>(&verdict))
        return restart_later(self, {0, u->board, source, reason, *r});
    u->given_up = true;
    u->board->give_up();
    ++st.what.tally->given_up[upstream_kind];
    spdlog::error("upstream actor {} stopped ({}) after {} restarts within {} s; gate stops "
                  "restarting it: calls to upstream {} are answered unavailable (-32041) until a "
                  "reload",
                  u->board->config().id, to_string(reason),
                  std::get<restart_intensity::give_up>(verdict).count,
                  within_seconds(st.what.restarts), u->board->config().id);
}

// The supervisor's end is its actors' end (it respawns nothing once it is gone).
void stop_children_at_exit(self_ptr self) {
    self->attach_functor([dir = self->state.directory, ups = self->state.upstreams] {
        // The boards forget their actors first: nothing on the io thread (a probe ticket
        // destroyed with its coroutine at shutdown) sends to an actor that is going away.
        for (const auto& u : *ups) {
            u.board->attach(upstream_actor{});
            u.board->attach_breaker(breaker_actor{});
            caf::anon_send_exit(u.actor, caf::exit_reason::user_shutdown);
        }
        auto c = dir->load();
        if (c->breakers)
            caf::anon_send_exit(c->breakers, caf::exit_reason::user_shutdown);
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
}

supervisor_actor::behavior_type supervisor(self_ptr self, supervised what,
                                           std::shared_ptr<actor_directory> directory,
                                           protocol::cursor_codec cursors) {
    auto& st = self->state;
    st.cursors = std::move(cursors);
    st.what = std::move(what);
    st.directory = std::move(directory);
    st.current = *st.directory->load();
    st.singletons.fill(restart_intensity(st.what.restarts));
    for (std::size_t slot = 0; slot < singleton_slots; ++slot)
        if (auto a = address_of(st.current, slot))
            self->monitor(caf::actor_cast<caf::actor>(a));
    self->set_down_handler([=](caf::down_msg& down) {
        if (auto slot = slot_of(self->state.current, down.source))
            singleton_stopped(self, *slot, down.reason);
        else
            upstream_stopped(self, down.source, down.reason);
    });
    handle_own_timers(self, [=](respawn_due& m) { respawn_when_due(self, m); });
    stop_children_at_exit(self);
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

} // namespace gate::actors

namespace gate::actors {

void add_supervisor_timers(caf::actor_system_config& cfg) {
    add_message_type<respawn_due>(cfg);
}

} // namespace gate::actors
