#include "actors/upstream_actor.hpp"

#include "actors/endpoint_rotation.hpp"
#include "actors/guard_board.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace gate {

namespace {

struct upstream_state {
    std::shared_ptr<guard_board> board;
    std::optional<upstream_guard> guard;
    std::optional<endpoint_rotation> rotation;
    std::optional<std::chrono::steady_clock::time_point> rest_timer; // when rest_over is due
    bool round_out = false; // a probe round was asked for and its verdicts are not back
    static inline const char* name = "gate.upstream";
};

using self_ptr = upstream_actor::stateful_pointer<upstream_state>;

guard_view current_view(const upstream_state& st, std::chrono::steady_clock::time_point now) {
    const auto& breaker = st.guard->breaker();
    guard_view v;
    v.breaker = breaker.recorded();
    v.probe_out = breaker.probe_out();
    v.reopens_at = breaker.reopens_at();
    v.failures = breaker.consecutive_failures();
    v.limited = st.guard->limited();
    v.in_rotation.resize(st.rotation->size());
    for (std::size_t e = 0; e < v.in_rotation.size(); ++e)
        v.in_rotation[e] = st.rotation->in_rotation(e, now);
    return v;
}

// Publishes the view when it changed (readers then see one pointer swap, not a copy per call).
void publish(self_ptr self) {
    auto& st = self->state;
    auto v = current_view(st, self->clock().now());
    if (auto old = st.board->view(); !old || !(*old == v))
        st.board->publish(std::make_shared<const guard_view>(std::move(v)));
}

// Passive health: the next rest to end puts its endpoint back, on the actor's clock.
void arm_rest_timer(self_ptr self) {
    auto& st = self->state;
    auto due = st.rotation->next_rest_over();
    if (!due || (st.rest_timer && *st.rest_timer <= *due))
        return;
    st.rest_timer = due;
    auto now = self->clock().now();
    self->delayed_send(self, *due > now ? *due - now : std::chrono::steady_clock::duration{0},
                       rest_over{});
}

void log_transition(const config::upstream& cfg, bool success, bool probe, const std::string& why) {
    if (success)
        spdlog::info("upstream {} circuit closed: the probe succeeded", cfg.id);
    else if (probe)
        spdlog::warn("upstream {} circuit open again: the probe failed: {}", cfg.id, why);
    else
        spdlog::warn("upstream {} circuit open after {} consecutive failures (last: {}); "
                     "probing again in {} ms",
                     cfg.id, cfg.circuit_breaker.failure_threshold, why,
                     cfg.circuit_breaker.half_open_after_ms);
}

upstream_actor::behavior_type upstream(self_ptr self, std::shared_ptr<guard_board> board) {
    auto& st = self->state;
    st.board = std::move(board);
    const auto& cfg = st.board->config();
    auto rest = std::chrono::milliseconds(cfg.circuit_breaker.half_open_after_ms);
    st.guard.emplace(cfg.circuit_breaker.failure_threshold, rest,
                     cfg.rate_limit ? std::optional(cfg.rate_limit->requests_per_minute)
                                    : std::nullopt);
    st.rotation.emplace(cfg.urls.size(), rest, cfg.health_check_interval_ms.has_value());
    publish(self);
    if (cfg.health_check_interval_ms)
        self->send(self, health_tick{});
    auto now = [self] { return self->clock().now(); };
    auto settle = [self, now](bool success, bool probe, const std::string& why) {
        auto& st = self->state;
        upstream_guard::admitted a{probe};
        if (st.guard->record(success, a, now()))
            log_transition(st.board->config(), success, probe, why);
        publish(self);
    };
    return {
        [=](guard_ask& m) {
            auto answer = self->state.guard->grant(m.use, now());
            publish(self);
            std::visit([&](auto& a) { m.reply(guard_answer(a)); }, answer);
        },
        [=](guard_success& m) { settle(true, m.probe, {}); },
        [=](guard_failure& m) {
            settle(false, m.probe, m.why);
            m.counted(true);
        },
        [=](guard_abandon&) {
            self->state.guard->abandon(upstream_guard::admitted{true});
            publish(self);
        },
        [=](endpoint_down& m) {
            auto& st = self->state;
            const auto& cfg = st.board->config();
            if (m.index >= st.rotation->size() || !st.rotation->eject(m.index, now()))
                return;
            if (st.rotation->size() > 1) {
                if (cfg.health_check_interval_ms)
                    spdlog::warn("upstream {} endpoint {} ejected: {}; back in rotation when a "
                                 "health probe passes",
                                 cfg.id, cfg.urls[m.index], m.why);
                else
                    spdlog::warn("upstream {} endpoint {} ejected: {}; back in rotation after {} "
                                 "ms",
                                 cfg.id, cfg.urls[m.index], m.why,
                                 cfg.circuit_breaker.half_open_after_ms);
            }
            arm_rest_timer(self);
            publish(self);
        },
        [=](rest_over&) {
            auto& st = self->state;
            st.rest_timer.reset();
            for (auto e : st.rotation->restore_rested(now()))
                if (st.rotation->size() > 1)
                    spdlog::info("upstream {} endpoint {} restored to rotation: its rest is over",
                                 st.board->config().id, st.board->config().urls[e]);
            arm_rest_timer(self);
            publish(self);
        },
        [=](probe_verdicts& m) {
            auto& st = self->state;
            const auto& cfg = st.board->config();
            auto t = now();
            for (std::size_t e = 0; e < m.why.size() && e < st.rotation->size(); ++e) {
                if (m.why[e] && st.rotation->eject(e, t))
                    spdlog::warn("upstream {} endpoint {} ejected by health probe: {}", cfg.id,
                                 cfg.urls[e], *m.why[e]);
                else if (!m.why[e] && st.rotation->restore(e))
                    spdlog::info("upstream {} endpoint {} restored by health probe", cfg.id,
                                 cfg.urls[e]);
            }
            publish(self);
            // Verdicts of a round this actor did not ask for (its predecessor's, before a
            // respawn) count, but do not start a second chain of ticks.
            if (std::exchange(st.round_out, false) && cfg.health_check_interval_ms)
                self->delayed_send(self, std::chrono::milliseconds(*cfg.health_check_interval_ms),
                                   health_tick{});
        },
        [=](health_tick&) {
            // The round's verdicts schedule the next tick; with no round to run yet (the io
            // thread has not registered it), the next tick is one interval away.
            auto& st = self->state;
            if (st.round_out)
                return;
            st.round_out = st.board->request_probe_round();
            if (!st.round_out)
                self->delayed_send(
                    self, std::chrono::milliseconds(*st.board->config().health_check_interval_ms),
                    health_tick{});
        },
    };
}

} // namespace

upstream_actor spawn_upstream_actor(caf::actor_system& sys, std::shared_ptr<guard_board> board) {
    // The fresh view and the new handle are on the board before this returns: a respawn
    // leaves no moment where the io thread reads the dead actor's state or asks it.
    board->publish(std::make_shared<const guard_view>(guard_board::initial_view(board->config())));
    auto actor = sys.spawn(upstream, board);
    board->attach(actor);
    return actor;
}

} // namespace gate
