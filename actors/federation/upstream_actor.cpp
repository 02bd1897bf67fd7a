#include "actors/federation/upstream_actor.hpp"

#include "actors/guards/endpoint_rotation.hpp"
#include "actors/guards/guard_board.hpp"
#include "actors/message_types.hpp"
#include "actors/own_timers.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace gate::actors {

namespace {

// The actor's own timers (actors/own_timers.hpp): the next health round is due; a round asked
// for has not reported within its bound; a rested endpoint may return.
struct health_timer {};
struct round_overdue {
    std::uint64_t round = 0;
};
struct rest_over {};

BOOST_DESCRIBE_STRUCT(health_timer, (), ())
BOOST_DESCRIBE_STRUCT(round_overdue, (), (round))
BOOST_DESCRIBE_STRUCT(rest_over, (), ())

// CAF finds a message's inspect and to_string by its namespace (actors/message_inspection.hpp):
// an anonymous namespace's types look only there.
using actors::inspect;
using actors::to_string;

struct upstream_state {
    std::shared_ptr<guard_board> board;
    std::optional<upstream_guard> guard;
    std::optional<endpoint_rotation> rotation;
    std::optional<std::chrono::steady_clock::time_point> rest_timer; // when rest_over is due
    bool round_out = false;     // a health round was asked for and its verdicts are not back
    std::uint64_t round = 0;    // which round (an overdue notice names it)
    bool timer_pending = false; // a health_timer is scheduled: one chain of rounds
    static inline const char* name = "gate.upstream";
};

using self_ptr = upstream_actor::stateful_pointer<upstream_state>;

// Publishes its part of the board's view (the board swaps it in only when it changed).
void publish(self_ptr self) {
    auto& st = self->state;
    auto now = self->clock().now();
    std::vector<bool> in_rotation(st.rotation->size());
    for (std::size_t e = 0; e < in_rotation.size(); ++e)
        in_rotation[e] = st.rotation->in_rotation(e, now);
    st.board->publish_rotation(st.guard->limited(), std::move(in_rotation));
}

// Passive health: the next rest to end puts its endpoint back, on the actor's clock.
void arm_rest_timer(self_ptr self) {
    auto& st = self->state;
    auto due = st.rotation->next_rest_over();
    if (!due || (st.rest_timer && *st.rest_timer <= *due))
        return;
    st.rest_timer = due;
    auto now = self->clock().now();
    start_own_timer(self, *due - now, rest_over{});
}

std::chrono::milliseconds interval_of(const upstream_state& st) {
    return std::chrono::milliseconds(st.board->config().health_check_interval_ms.value_or(0));
}
// A round out longer than the upstream's request timeout and a grace has lost its report.
std::chrono::milliseconds overdue_after(const upstream_state& st) {
    return std::chrono::milliseconds(st.board->config().timeouts.request_ms) + guard_grace;
}

// The next health round, one interval from now, unless one is already scheduled.
void schedule_round(self_ptr self) {
    auto& st = self->state;
    if (st.timer_pending)
        return;
    st.timer_pending = true;
    start_own_timer(self, interval_of(st), health_timer{});
}

// Asks the io thread for a health round now, unless one is out; with none registered yet,
// the next try is one interval away.
void run_round(self_ptr self) {
    auto& st = self->state;
    if (st.round_out)
        return;
    if (!st.board->request_probe_round())
        return schedule_round(self);
    st.round_out = true;
    start_own_timer(self, interval_of(st) + overdue_after(st), round_overdue{++st.round});
}

// The actor's own timers, handled off its typed interface.
void handle_timers(self_ptr self) {
    handle_own_timers(
        self,
        [=](health_timer&) {
            self->state.timer_pending = false;
            run_round(self);
        },
        [=](round_overdue& m) {
            auto& st = self->state;
            if (!st.round_out || m.round != st.round)
                return;
            spdlog::warn("upstream {} health round did not report within {} ms; probing again",
                         st.board->config().id, (interval_of(st) + overdue_after(st)).count());
            st.round_out = false;
            schedule_round(self);
        },
        [=](rest_over&) {
            auto& st = self->state;
            st.rest_timer.reset();
            for (auto e : st.rotation->restore_rested(self->clock().now()))
                if (st.rotation->size() > 1)
                    spdlog::info("upstream {} endpoint {} restored to rotation: its rest is over",
                                 st.board->config().id, st.board->config().urls[e]);
            arm_rest_timer(self);
            publish(self);
        });
}

// An endpoint a call found down leaves the rotation until its rest is over (or a health
// probe passes, where probes run).
void eject_endpoint(self_ptr self, const endpoint_down& m) {
    auto& st = self->state;
    const auto& cfg = st.board->config();
    if (m.index >= st.rotation->size() || !st.rotation->eject(m.index, self->clock().now()))
        return;
    if (st.rotation->size() > 1) {
        if (cfg.health_check_interval_ms)
            spdlog::warn("upstream {} endpoint {} ejected: {}; back in rotation when a "
                         "health probe passes",
                         cfg.id, cfg.urls[m.index], m.why);
        else
            spdlog::warn("upstream {} endpoint {} ejected: {}; back in rotation after {} "
                         "ms",
                         cfg.id, cfg.urls[m.index], m.why, cfg.circuit_breaker.half_open_after_ms);
    }
    arm_rest_timer(self);
    publish(self);
}

// A health round's verdicts: each endpoint ejected or restored, and the next round scheduled.
void apply_verdicts(self_ptr self, const probe_verdicts& m) {
    auto& st = self->state;
    const auto& cfg = st.board->config();
    auto t = self->clock().now();
    for (std::size_t e = 0; e < m.why.size() && e < st.rotation->size(); ++e) {
        if (m.why[e] && st.rotation->eject(e, t))
            spdlog::warn("upstream {} endpoint {} ejected by health probe: {}", cfg.id, cfg.urls[e],
                         *m.why[e]);
        else if (!m.why[e] && st.rotation->restore(e))
            spdlog::info("upstream {} endpoint {} restored by health probe", cfg.id, cfg.urls[e]);
    }
    publish(self);
    // Verdicts of a round this actor did not ask for (its predecessor's, before a respawn)
    // count; only one chain of rounds is ever scheduled.
    if (std::exchange(st.round_out, false) && cfg.health_check_interval_ms)
        schedule_round(self);
}

upstream_actor::behavior_type upstream(self_ptr self, std::shared_ptr<guard_board> board) {
    auto& st = self->state;
    st.board = std::move(board);
    const auto& cfg = st.board->config();
    auto rest = std::chrono::milliseconds(cfg.circuit_breaker.half_open_after_ms);
    st.guard.emplace(cfg.rate_limit ? std::optional(cfg.rate_limit->requests_per_minute)
                                    : std::nullopt);
    st.rotation.emplace(cfg.urls.size(), rest, cfg.health_check_interval_ms.has_value());
    publish(self);
    handle_timers(self);
    if (cfg.health_check_interval_ms)
        self->send(self, health_tick{});
    return {
        [=](guard_ask& m) {
            auto answer = self->state.guard->grant(m.use, self->clock().now(), m.demand);
            std::visit([&](auto& a) { m.reply(guard_answer(a)); }, answer);
        },
        [=](endpoint_down& m) { eject_endpoint(self, m); },
        [=](probe_verdicts& m) { apply_verdicts(self, m); },
        [=](health_tick&) {
            if (self->state.board->config().health_check_interval_ms)
                run_round(self);
        },
    };
}

} // namespace

upstream_actor spawn_upstream_actor(caf::actor_system& sys, std::shared_ptr<guard_board> board) {
    // Its fresh part of the view and the new handle are on the board before this returns: a
    // respawn leaves no moment where the io thread reads the dead actor's state or asks it.
    auto fresh = guard_board::initial_view(board->config());
    board->publish_rotation(fresh.limited, std::move(fresh.in_rotation));
    auto actor = sys.spawn(upstream, board);
    board->attach(actor);
    return actor;
}

} // namespace gate::actors

namespace gate::actors {

void add_upstream_actor_timers(caf::actor_system_config& cfg) {
    add_message_type<health_timer>(cfg);
    add_message_type<round_overdue>(cfg);
    add_message_type<rest_over>(cfg);
}

} // namespace gate::actors
