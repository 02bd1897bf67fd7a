#include "actors/guards/breaker_actor.hpp"

#include "actors/guards/circuit_breaker.hpp"
#include "actors/guards/guard_board.hpp"
#include "actors/message_types.hpp"
#include "actors/own_timers.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace gate::actors {

namespace {

// The actor's own timer (actors/own_timers.hpp): a probe handed out has not reported within its
// bound (its caller is gone, or its outcome was lost): the slot is freed.
struct probe_overdue {
    const guard_board* board = nullptr;
    std::uint64_t probe = 0;
};

BOOST_DESCRIBE_STRUCT(probe_overdue, (), (board, probe))

// CAF finds a message's inspect and to_string by its namespace (actors/message_inspection.hpp):
// an anonymous namespace's types look only there.
using actors::inspect;
using actors::to_string;

struct circuit {
    std::shared_ptr<guard_board> board;
    circuit_breaker breaker;
    std::uint64_t probe = 0; // which half-open probe was handed out last

    explicit circuit(std::shared_ptr<guard_board> b)
        : board(std::move(b)),
          breaker(board->config().circuit_breaker.failure_threshold,
                  std::chrono::milliseconds(board->config().circuit_breaker.half_open_after_ms)) {}
};

struct breaker_state {
    std::vector<circuit> circuits;
    static inline const char* name = "gate.breaker";
};

using self_ptr = breaker_actor::stateful_pointer<breaker_state>;

circuit* find(self_ptr self, const guard_board* board) {
    auto& cs = self->state.circuits;
    auto c = std::find_if(cs.begin(), cs.end(), [&](auto& c) { return c.board.get() == board; });
    return c == cs.end() ? nullptr : &*c;
}

void publish(const circuit& c) {
    const auto& b = c.breaker;
    c.board->publish_breaker(b.recorded(), b.probe_out(), b.reopens_at(), b.consecutive_failures());
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

std::chrono::milliseconds overdue_after(const circuit& c) {
    return std::chrono::milliseconds(c.board->config().timeouts.request_ms) + guard_grace;
}

// Keeps the circuits of boards still in `boards`, starts a closed one for each new board (shown
// on it, and the board names this actor) and forgets those whose upstream was retired.
void take_boards(self_ptr self, const std::vector<std::shared_ptr<guard_board>>& boards) {
    std::vector<circuit> next;
    for (const auto& b : boards) {
        if (auto* kept = find(self, b.get())) {
            next.push_back(std::move(*kept));
            continue;
        }
        auto& c = next.emplace_back(b);
        publish(c);
        b->attach_breaker(caf::actor_cast<breaker_actor>(self));
    }
    self->state.circuits = std::move(next);
}

void answer_ask(self_ptr self, breaker_ask& m) {
    auto* c = find(self, m.board.get());
    if (!c)
        return m.reply(upstream_guard::granted{});
    auto now = self->clock().now();
    auto admission = c->breaker.admit(now);
    if (admission == circuit_breaker::admission::refused) {
        auto wait = std::chrono::ceil<std::chrono::milliseconds>(c->breaker.reopens_at() - now);
        return m.reply(upstream_guard::refused{upstream_guard::refused::reason::circuit_open,
                                               std::max(std::chrono::milliseconds(1), wait)});
    }
    bool probe = admission == circuit_breaker::admission::probe;
    if (probe)
        start_own_timer(self, overdue_after(*c), probe_overdue{c->board.get(), ++c->probe});
    publish(*c);
    m.reply(upstream_guard::granted{probe});
}

void count_outcome(self_ptr self, breaker_outcome& m) {
    if (auto* c = find(self, m.board.get())) {
        if (c->breaker.record(m.success, m.probe, self->clock().now()))
            log_transition(c->board->config(), m.success, m.probe, m.why);
        publish(*c);
    }
    m.counted(true);
}

void open_for_fleet(self_ptr self, breaker_fleet_opened& m) {
    if (auto* c = find(self, m.board.get())) {
        if (c->breaker.open_for(m.rest, self->clock().now()))
            spdlog::warn("upstream {} circuit open: the fleet's breaker is open (failures "
                         "counted across instances); probing again in {} ms",
                         c->board->config().id, m.rest.count());
        publish(*c);
    }
    m.counted(true);
}

breaker_actor::behavior_type breakers(self_ptr self,
                                      std::vector<std::shared_ptr<guard_board>> boards) {
    take_boards(self, boards);
    handle_own_timers(self, [=](probe_overdue& m) {
        auto* c = find(self, m.board);
        if (!c || m.probe != c->probe || !c->breaker.probe_out())
            return;
        spdlog::warn("upstream {} half-open probe did not report within {} ms; the next call "
                     "probes",
                     c->board->config().id, overdue_after(*c).count());
        c->breaker.abandon_probe();
        publish(*c);
    });
    return {
        [=](breaker_ask& m) { answer_ask(self, m); },
        [=](breaker_outcome& m) { count_outcome(self, m); },
        [=](breaker_abandon& m) {
            if (auto* c = find(self, m.board.get())) {
                c->breaker.abandon_probe();
                publish(*c);
            }
        },
        [=](breaker_fleet_opened& m) { open_for_fleet(self, m); },
        [=](breaker_boards& m) { take_boards(self, m.boards); },
    };
}

} // namespace

breaker_actor spawn_breaker_actor(caf::actor_system& sys,
                                  std::vector<std::shared_ptr<guard_board>> boards) {
    // Every circuit closed, and the new handle on each board, before this returns.
    auto actor = sys.spawn(breakers, boards);
    for (const auto& b : boards) {
        b->publish_breaker(circuit_breaker::state::closed, false, {}, 0);
        b->attach_breaker(actor);
    }
    return actor;
}

} // namespace gate::actors

namespace gate::actors {

void add_breaker_actor_timers(caf::actor_system_config& cfg) {
    add_message_type<probe_overdue>(cfg);
}

} // namespace gate::actors
