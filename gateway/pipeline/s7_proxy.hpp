// Stage 7, proxy (s7_proxy.cpp), and what it asks of the components that carry a call: the call
// sent to its upstream, a list's stale lists fetched, and the methods gate answers by asking
// upstreams itself (initialize, logging/setLevel, the task methods, a subscription at a 2026-07-28
// upstream).
#pragma once

#include "actors/federation/router_messages.hpp"
#include "gateway/pipeline/call_services.hpp"
#include "gateway/pipeline/stage.hpp"
#include "protocol/list_kind.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gate::gateway::pipeline {

// What stage 7 holds: one narrow service per component it asks (call_services.hpp).
struct proxy_services {
    call_stage_services& calls;
    list_stage_services& lists;
    log_level_services& log_levels;
    task_stage_services& tasks;
    subscription_stage_services& subscriptions;
};

std::unique_ptr<stage> make_proxy(proxy_services services);

} // namespace gate::gateway::pipeline
