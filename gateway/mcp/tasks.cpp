// Tasks through the gateway (spec rule 10): a tools/call that mints a task pins it to its
// upstream for the calling principal; tasks/get, tasks/result, tasks/cancel and tasks/update
// go to that owner, or to the one upstream that answers a read-only tasks/get probe;
// tasks/list merges every upstream by task id and pages like the other lists. Task ids are
// opaque and never rewritten. Every upstream a task method reaches (the owner, each probe,
// each part of tasks/list) is one the caller's tenant sees and the policy grants the method
// at, and each such invocation is charged to the budgets like any other (docs/security.md).
#include "actors/federation/router_messages.hpp"
#include "actors/federation/task_keeper.hpp"
#include "gateway/entry/gateway_impl.hpp"
#include "gateway/mcp/fan_out.hpp"
#include "gateway/pipeline/answers.hpp"
#include "protocol/cursor_codec.hpp"
#include "protocol/list_merge.hpp"
#include "transport/bridge.hpp"

#include <caf/send.hpp>
#include <cstdio>
#include <cstdlib>
#include <spdlog/spdlog.h>

namespace gate::transport {

namespace asio = boost::asio;
namespace json = boost::json;
namespace ec = protocol::error_code;

namespace {

json::object unknown_task(request_context& rec, const json::value& id, std::string_view task_id) {
    // The same answer for a task nobody minted and for another principal's: no existence leak.
    return refusal(rec, id, gateway_error::unknown_task, {task_id});
}

bool has_result(const upstream_reply& r) {
    auto* m = std::get_if<upstream_message>(&r);
    return m && m->has("result");
}

} // namespace

std::uint64_t task_owner_key(const request_context& rec) {
    // Spec (Principal): anonymous callers have no principal fields, so they share one owner.
    return rec.caller ? protocol::principal_hash(rec.caller->issuer, rec.caller->subject)
                      : protocol::principal_hash("", "");
}

std::uint64_t cursor_owner_key(const request_context& rec) {
    // A cursor is only a position in a list; for anonymous callers their session is the
    // narrowest binding there is (a stateless client has none, and shares with its peers).
    return rec.caller ? protocol::principal_hash(rec.caller->issuer, rec.caller->subject)
                      : protocol::principal_hash("session", rec.session);
}

namespace {

// A task's owner as the fleet's store keeps it: the owner key (hex) and the upstream's id.
std::string fleet_task_record(std::uint64_t principal, const std::string& upstream) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(principal));
    return std::string(hex) + " " + upstream;
}

// Where a probe found a task nobody has a record of, in the fleet's store: no owner.
constexpr std::string_view located_owner = "----------------";

std::string fleet_located_record(const std::string& upstream) {
    return std::string(located_owner) + " " + upstream;
}

// The owner in a record of the fleet's store, as the keeper would answer for `principal`.
task_owner from_fleet_record(const std::string& record, std::uint64_t principal) {
    auto space = record.find(' ');
    if (space != 16)
        return {};
    if (record.compare(0, 16, located_owner) == 0)
        return {task_owner::kind::located, record.substr(17)};
    auto owner = std::strtoull(record.substr(0, 16).c_str(), nullptr, 16);
    if (owner != principal)
        return {task_owner::kind::foreign, {}};
    return {task_owner::kind::owned, record.substr(17)};
}

} // namespace

std::optional<std::string> minted_task_id(const upstream_message& answer) {
    // 2025-11-25 nests the task (`result.task.taskId`); the 2026-07-28 tasks extension
    // answers a CreateTaskResult (`resultType: "task"`, `taskId` at the top).
    std::optional<json::value> task_id;
    if (auto task = answer.value_at({"result", "task"}); task && task->is_object()) {
        if (auto* id = task->as_object().if_contains("taskId"))
            task_id = *id;
    } else if (auto type = answer.value_at({"result", "resultType"}); type && *type == "task") {
        task_id = answer.value_at({"result", "taskId"});
    }
    if (!task_id || !task_id->is_string())
        return std::nullopt;
    return std::string(task_id->get_string());
}

asio::awaitable<void> gateway::impl::pin_minted_task(const request_context& rec,
                                                     std::size_t upstream, std::string id) {
    if (!actors()->tasks)
        co_return;
    const auto& owner = rec.view->clients[upstream]->config().id;
    caf::anon_send(actors()->tasks, task_pin{id, task_owner_key(rec), owner});
    // The fleet's record is written before the client hears of the task, so its next call
    // may land on any instance.
    if (fleet)
        co_await fleet->put("task", id, fleet_task_record(task_owner_key(rec), owner),
                            task_registry::lifetime);
}

asio::awaitable<json::object> gateway::impl::task_call(const std::string& session,
                                                       const json::value& id,
                                                       const std::string& method,
                                                       json::object params, request_context& rec) {
    if (method == "tasks/list")
        co_return co_await task_list(session, id, params, rec);
    if (method != "tasks/get" && method != "tasks/result" && method != "tasks/cancel" &&
        method != "tasks/update")
        co_return refusal(rec, id, gateway_error::method_not_found, {method});
    auto* task_value = params.if_contains("taskId");
    if (!task_value || !task_value->is_string() || task_value->get_string().empty())
        co_return refusal(rec, id, gateway_error::invalid_params,
                          {"taskId must be a non-empty string"});
    std::string task_id(task_value->get_string());
    rec.name = task_id;
    auto principal = task_owner_key(rec);
    task_owner owner;
    if (actors()->tasks) {
        auto found = co_await ask<task_owner>(actors()->tasks, [&](reply_to<task_owner> r) {
            return task_find{task_id, principal, std::move(r)};
        });
        if (!found)
            co_return refusal(rec, id, gateway_error::internal_error, {"task keeper unavailable"});
        owner = *found;
    }
    if (owner.what == task_owner::kind::unknown && fleet) {
        // Minted through another instance of the fleet: its record says whose it is.
        auto record = co_await fleet->get("task", task_id);
        if (record && *record) {
            owner = from_fleet_record(**record, principal);
            if (owner.what == task_owner::kind::owned && actors()->tasks)
                caf::anon_send(actors()->tasks, task_pin{task_id, principal, owner.upstream});
            else if (owner.what == task_owner::kind::located && actors()->tasks)
                caf::anon_send(actors()->tasks, task_locate{task_id, owner.upstream});
        }
    }
    if (owner.what == task_owner::kind::foreign)
        co_return unknown_task(rec, id, task_id);
    // The record names its upstream by id; one this view no longer has (a reload removed
    // it) is as good as no record: the probe finds whoever holds the task now.
    std::size_t owner_index = 0;
    if (owner.what == task_owner::kind::owned || owner.what == task_owner::kind::located) {
        auto at = rec.view->snap->upstream_by_id.find(owner.upstream);
        if (at == rec.view->snap->upstream_by_id.end())
            owner = task_owner{};
        else
            owner_index = at->second;
    }
    if (owner.what == task_owner::kind::unknown) {
        auto found = co_await probe_task(id, method, task_id, rec);
        if (auto* answer = std::get_if<json::object>(&found))
            co_return std::move(*answer);
        auto& [answered, probed] = std::get<task_probe>(found);
        if (method == "tasks/get") {
            rec.upstream = rec.view->clients[answered]->config().id;
            co_return pass_on(std::move(probed), id, rec, answer_read::client_answer);
        }
        owner_index = answered;
    }
    if (auto refused = co_await task_guards(id, method, task_id, owner_index, rec))
        co_return std::move(*refused);
    rec.upstream = rec.view->clients[owner_index]->config().id;
    auto reply = co_await call_upstream(owner_index, method, std::move(params), rec);
    if (auto* f = std::get_if<upstream_failure>(&reply))
        co_return refuse_upstream(rec, id, *rec.upstream, *f);
    // The owner's answer, errors included, passes through verbatim.
    co_return pass_on(std::move(std::get<upstream_message>(reply)), id, rec,
                      answer_read::client_answer);
}

policy_decision gateway::impl::task_policy(const request_context& rec, std::size_t upstream,
                                           std::string_view method) const {
    const auto& policy = rec.view->snap->policy;
    if (!policy)
        return {true, std::nullopt};
    return policy->decide_task(rec.caller ? &*rec.caller : nullptr,
                               rec.view->snap->upstream(upstream).id, method);
}

asio::awaitable<std::optional<json::object>>
gateway::impl::task_guards(const json::value& id, const std::string& method,
                           const std::string& task_id, std::size_t upstream, request_context& rec) {
    // An upstream the tenant does not see holds no task of this caller's, as far as the
    // caller can tell: the same answer as an unknown id.
    if (!tenant_sees(rec, upstream))
        co_return unknown_task(rec, id, task_id);
    auto decided = task_policy(rec, upstream, method);
    if (rec.view->snap->policy) {
        rec.decision = decided.allowed ? "allow" : "deny";
        rec.rule_id = decided.rule_id;
    }
    const auto& server = rec.view->snap->upstream(upstream).id;
    if (!decided.allowed) {
        co_return refusal(rec, id, gateway_error::policy_denied,
                          {method + " of " + task_id + " on " + server +
                           (rec.caller ? " for " + rec.caller->subject : "")});
    }
    if (auto spent = co_await charge_budgets(rec, upstream))
        co_return budget_refusal(rec, *spent);
    co_return std::nullopt;
}

asio::awaitable<std::vector<std::size_t>>
gateway::impl::task_reach(std::string_view method, request_context& rec,
                          std::optional<budget_ledger::exhausted>& refused) {
    // Each upstream the method may reach, charged: an upstream over its own budget is left
    // out; the server's or the tenant's refuses the whole request (as for a list).
    std::vector<std::size_t> reach;
    for (std::size_t i = 0; i < rec.view->clients.size(); ++i) {
        if (!tenant_sees(rec, i) || !task_policy(rec, i, method).allowed)
            continue;
        if (auto spent = co_await charge_budgets(rec, i)) {
            if (!spent->key.starts_with("upstream ")) {
                refused = std::move(spent);
                co_return std::vector<std::size_t>{};
            }
            continue;
        }
        reach.push_back(i);
    }
    co_return reach;
}

asio::awaitable<std::variant<gateway::impl::task_probe, json::object>>
gateway::impl::probe_task(const json::value& id, const std::string& method,
                          const std::string& task_id, request_context& rec) {
    // No record (minted before a restart, or by a call gate did not see): ask the upstreams
    // the caller may reach, read-only, who holds it. Only the owner that answered gets the
    // method; where it was found is remembered for anyone (a probe never takes ownership).
    std::optional<budget_ledger::exhausted> refused;
    auto reach = co_await task_reach(method, rec, refused);
    if (refused)
        co_return budget_refusal(rec, *refused);
    auto& clients = rec.view->clients;
    auto probes = co_await fan_out<upstream_reply>(
        reach.size(), [&](std::size_t k) -> asio::awaitable<upstream_reply> {
            // Probes are not the client's call: nothing to cancel.
            co_return co_await call_upstream(reach[k], "tasks/get",
                                             json::object{{"taskId", task_id}}, rec, false);
        });
    for (std::size_t k = 0; k < probes.size(); ++k) {
        if (!probes[k] || !has_result(*probes[k]))
            continue;
        const auto& holder = clients[reach[k]]->config().id;
        if (actors()->tasks)
            caf::anon_send(actors()->tasks, task_locate{task_id, holder});
        if (fleet)
            co_await fleet->put("task", task_id, fleet_located_record(holder),
                                task_registry::lifetime);
        co_return task_probe{reach[k], std::move(std::get<upstream_message>(*probes[k]))};
    }
    co_return unknown_task(rec, id, task_id);
}

asio::awaitable<json::object> gateway::impl::task_list(const std::string& session,
                                                       const json::value& id,
                                                       const json::object& params,
                                                       request_context& rec) {
    std::optional<std::string> cursor;
    if (auto* c = params.if_contains("cursor"); c && c->is_string())
        cursor = std::string(c->get_string());
    else if (c && !c->is_null())
        co_return refusal(rec, id, gateway_error::invalid_cursor, {"not a string"});
    // A client's tasks live in its own upstream sessions: fetched fresh, never cached, from
    // the upstreams the caller may reach, each charged.
    auto& clients = rec.view->clients;
    std::optional<budget_ledger::exhausted> refused;
    auto reach = co_await task_reach("tasks/list", rec, refused);
    if (refused)
        co_return budget_refusal(rec, *refused);
    auto lists = co_await fan_out<std::optional<json::array>>(
        reach.size(), [&](std::size_t k) -> asio::awaitable<std::optional<json::array>> {
            auto i = reach[k];
            bridged_call call;
            auto ctx = bridged_context(rec, i, call);
            call.tells_keeper = false; // a list is not a call the client can cancel
            ++rec.upstream_calls;
            auto r = co_await clients[i]->fetch_list("tasks/list", "tasks", ctx);
            if (auto* f = std::get_if<upstream_failure>(&r)) {
                spdlog::warn("upstream {} left out of tasks/list: {}", clients[i]->config().id,
                             f->message);
                co_return std::nullopt;
            }
            co_return std::move(std::get<json::array>(r));
        });
    std::vector<protocol::upstream_items> parts_by_upstream;
    bool any = false;
    for (std::size_t k = 0; k < lists.size(); ++k)
        if (lists[k] && *lists[k]) {
            parts_by_upstream.push_back({reach[k], &**lists[k]});
            any = true;
        }
    if (!any && !reach.empty()) {
        co_return refusal(rec, id, gateway_error::all_upstreams_down);
    }
    auto merged = protocol::merge_by_id("taskId", parts_by_upstream);
    using answer_t = std::variant<list_answer, route_error>;
    auto answer = co_await ask<answer_t>(
        actors()->router_for(protocol::list_kind::tasks), [&](reply_to<answer_t> r) {
            return page_tasks{rec.view->snap, std::move(merged), cursor, task_owner_key(rec),
                              std::move(r)};
        });
    co_return list_response(std::move(answer), id, rec);
}

} // namespace gate::transport
