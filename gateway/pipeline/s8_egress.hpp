// Stage 8, egress (s8_egress.cpp), and what it asks of the components that carry a call: a list's
// page completed from what was fetched, a minted task pinned to its upstream, a subscription the
// upstream accepted recorded, and the session an accepted initialize opens.
#pragma once

#include "actors/federation/router_messages.hpp"
#include "gateway/pipeline/call_services.hpp"
#include "gateway/pipeline/stage.hpp"
#include "protocol/list_kind.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gate::gateway {
class hook_asker;
} // namespace gate::gateway

namespace gate::gateway::pipeline {

// What stage 8 holds: one narrow service per component it asks (call_services.hpp).
struct egress_services {
    list_stage_services& lists;
    task_stage_services& tasks;
    icon_rewriter& icons;
    subscription_stage_services& subscriptions;
    session_opener& sessions;
    session_publisher& fleet;
};

// `hooks`: where policy.decisionHook is asked about results (null: never).
std::unique_ptr<stage> make_egress(egress_services services, hook_asker* hooks);

} // namespace gate::gateway::pipeline
