// What supervision did, by kind of actor, shared by the supervisor (which counts) and
// /metrics (which reads it at each scrape: gate_actor_restarts_total{actor} and
// gate_actor_given_up_total{actor}, `actor` one of `supervised_kinds`).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

namespace gate::actors {

inline constexpr std::array<std::string_view, 9> supervised_kinds = {
    "router",        "task_keeper", "bridge_keeper", "audit_sink", "limiter",
    "budget_keeper", "span_sink",   "breaker",       "upstream"};

struct supervision_tally {
    std::array<std::atomic<std::int64_t>, supervised_kinds.size()> restarts{};
    // Crashes past the restart intensity: an upstream's actor left stopped, or a process-wide
    // actor's, after which the supervisor stops (and gate exits).
    std::array<std::atomic<std::int64_t>, supervised_kinds.size()> given_up{};
};

} // namespace gate::actors
