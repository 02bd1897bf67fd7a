// Every message an actor's typed interface accepts, as one type list: registered by
// add_message_types (actors/message_types.cpp, which checks the list against each interface)
// and walked by message_inspection_test.
#pragma once

#include "actors/bridging/bridge_keeper.hpp"
#include "actors/bridging/bridged_session_actor.hpp"
#include "actors/federation/router.hpp"
#include "actors/federation/task_keeper.hpp"
#include "actors/federation/upstream_actor.hpp"
#include "actors/guards/breaker_actor.hpp"
#include "actors/guards/budget_keeper.hpp"
#include "actors/guards/limiter.hpp"
#include "actors/sinks/audit.hpp"
#include "actors/sinks/recorder.hpp"
#include "actors/sinks/span_sink.hpp"
#include "actors/supervision/supervisor.hpp"

#include <boost/mp11/list.hpp>

namespace gate::actors {

using message_list = boost::mp11::mp_list<
    // the routers
    plan_list, complete_list, resolve_call, page_tasks, invalidate_upstream, replace_snapshot,
    read_cached_lists, query_tools,
    // the bridge keeper and its bridged sessions
    bridge_batch, bridge_used, bridge_call_started, bridge_call_ended, bridge_cancel_lookup,
    bridge_subscription, bridge_updated, bridge_session_ended, bridge_listening, bridged_idle,
    bridged_idle_check, bridged_end, bridged_session_args,
    // an upstream's actor, the breakers, the limiter, the budgets, the tasks
    guard_ask, endpoint_down, probe_verdicts, health_tick, breaker_ask, breaker_outcome,
    breaker_abandon, breaker_fleet_opened, breaker_boards, limit_ask, principal_limit_ask,
    tenant_limit_ask, tool_limit_ask, budget_reserve_ask, budget_reserved_elsewhere, task_pin,
    task_locate, task_find, task_count, task_sweep,
    // the sinks
    audit_batch, span_batch, record_batch, batch_settled, batch_wake, batch_close, batch_flush,
    // the supervisor
    reload_snapshot, adopt_upstreams>;

} // namespace gate::actors
