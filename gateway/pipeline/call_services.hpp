// What stages 7 (proxy) and 8 (egress) ask of the components that carry a call, one interface
// per component, each implemented by the component that owns the state it reads: the calls on
// a client's bridged sessions (gateway/mcp/upstream_calls), the lists (list_methods), the task
// methods (task_methods), logging/setLevel (client_traffic), subscriptions (listen_methods),
// icons (gateway/mcp/icon_proxy), the sessions an initialize opens (session_admission)
// and their records in a fleet (gateway/mcp/fleet_sessions).
#pragma once

#include "actors/federation/router_messages.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/step.hpp"
#include "protocol/list_kind.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gate::gateway::pipeline {

using call_ticket = std::shared_ptr<upstream_client::guard_ticket>;

class call_stage_services {
public:
    // The routed call (ctx.routed.target, its params taken) on the client's bridged session at
    // its upstream, with the admission stage 6 granted (ctx.guards.admitted, taken); the
    // upstream's answer or why there is none left in ctx for egress (keep_reply). Stage 7
    // hands this coroutine on as it is: the call path makes no frame of the stage's own.
    virtual boost::asio::awaitable<verdict> call_routed(request_context& ctx) = 0;
    // initialize answered from the federation (in passthrough, by the upstream); `version`:
    // the revision agreed with the client.
    virtual boost::asio::awaitable<boost::json::object>
    initialize(const boost::json::value& id, const boost::json::object& params,
               std::string& version, request_context& ctx) = 0;

protected:
    ~call_stage_services() = default;
};

class list_stage_services {
public:
    // The planned upstreams' lists, fetched concurrently; `tickets`: one admission per
    // planned upstream (null: refused, left out).
    virtual boost::asio::awaitable<std::vector<actors::fetched_list>>
    fetch_lists(protocol::list_kind kind, const actors::list_plan& plan,
                std::vector<call_ticket> tickets, request_context& ctx) = 0;
    // The list's answer to the client: what was fetched stored, merged, and the page the
    // client's cursor asks for cut (or the refusal).
    virtual boost::asio::awaitable<boost::json::object>
    complete_list(protocol::list_kind kind, const actors::list_plan& plan,
                  std::vector<actors::fetched_list> fetched, const boost::json::value& id,
                  const boost::json::object& params, request_context& ctx) = 0;
    // A call of gate's own tools (ctx.routed.gate_tool), answered from the tools list planned
    // and fetched for it.
    virtual boost::asio::awaitable<boost::json::object>
    answer_gate_tool(protocol::gate_tool tool, const actors::list_plan& plan,
                     std::vector<actors::fetched_list> fetched, const boost::json::value& id,
                     const boost::json::object& params, request_context& ctx) = 0;

protected:
    ~list_stage_services() = default;
};

class log_level_services {
public:
    // logging/setLevel at every upstream session of the client.
    virtual boost::asio::awaitable<boost::json::object>
    set_log_level(const std::string& session, const boost::json::value& id,
                  const boost::json::object& params, request_context& ctx) = 0;

protected:
    ~log_level_services() = default;
};

class task_stage_services {
public:
    // A task method at the task's owner (tasks/list merged from every upstream).
    virtual boost::asio::awaitable<boost::json::object> task_call(const boost::json::value& id,
                                                                  const std::string& method,
                                                                  boost::json::object params,
                                                                  request_context& ctx) = 0;
    // The task a tools/call answer minted, pinned to `upstream` for the caller before the
    // client hears of it.
    virtual boost::asio::awaitable<void> pin_task(const request_context& ctx, std::size_t upstream,
                                                  std::string task_id) = 0;

protected:
    ~task_stage_services() = default;
};

class subscription_stage_services {
public:
    // resources/(un)subscribe at a 2026-07-28 upstream, which has no such method: gate holds
    // the URI in its own listen there.
    virtual boost::asio::awaitable<boost::json::object>
    subscribe_at_modern_upstream(const std::string& method, const boost::json::value& id,
                                 const actors::route& target, request_context& ctx) = 0;
    // A subscription the upstream accepted (or dropped), for the fan-out of its updates.
    virtual void record_subscription(const request_context& ctx, const std::string& uri,
                                     bool subscribed) = 0;

protected:
    ~subscription_stage_services() = default;
};

class icon_rewriter {
public:
    // The icons of an answer's resource links (`items`: its content blocks), from upstream
    // `upstream` of `snap`, rewritten for gate's origin as a list's are (docs/security.md,
    // Icons); `what`: the method that carried them, for the log.
    virtual void rewrite_icons(const actors::snapshot& snap, std::size_t upstream,
                               std::string_view what, boost::json::array& items) = 0;

protected:
    ~icon_rewriter() = default;
};

class session_opener {
public:
    // A new downstream session within the caller's share; nullopt: refused, the refusal on
    // `ctx`.
    virtual std::optional<std::string> open_session(request_context& ctx,
                                                    const boost::json::object& capabilities) = 0;

protected:
    ~session_opener() = default;
};

class session_publisher {
public:
    // The session's record, for every instance of a fleet, written before the client hears
    // its id.
    virtual boost::asio::awaitable<void> publish_session(const std::string& id,
                                                         const std::string& protocol_version,
                                                         const boost::json::object& capabilities,
                                                         const std::string& owner) = 0;

protected:
    ~session_publisher() = default;
};

} // namespace gate::gateway::pipeline
