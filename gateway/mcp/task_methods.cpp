// Task ids are opaque and never rewritten; a task's owner is found in the keeper, then in the
// fleet's store, then by probing the upstreams the caller may reach.
#include "gateway/mcp/task_methods.hpp"

#include "gateway/mcp/list_methods.hpp"
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/budget_charger.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "protocol/list_merge.hpp"
#include "transport/io/fan_out.hpp"

#include <cstdio>
#include <cstdlib>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;

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
    return rec.who.caller
               ? protocol::principal_hash(rec.who.caller->issuer, rec.who.caller->subject)
               : protocol::principal_hash("", "");
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
actors::task_owner from_fleet_record(const std::string& record, std::uint64_t principal) {
    auto space = record.find(' ');
    if (space != 16)
        return {};
    if (record.compare(0, 16, located_owner) == 0)
        return {actors::task_owner::kind::located, record.substr(17)};
    auto owner = std::strtoull(record.substr(0, 16).c_str(), nullptr, 16);
    if (owner != principal)
        return {actors::task_owner::kind::foreign, {}};
    return {actors::task_owner::kind::owned, record.substr(17)};
}

} // namespace

namespace {

// What the policy decides for the task method `method` at `upstream` (the tenant's view of
// upstreams: tenant_sees, gateway/pipeline/request_context.hpp).
policy::policy_decision task_policy(const request_context& rec, std::size_t upstream,
                                    std::string_view method) {
    const auto& policy = rec.view->snap->policy;
    if (!policy) {
        policy::policy_decision open;
        open.allowed = true;
        return open;
    }
    return policy->decide_task(rec.who.caller ? &*rec.who.caller : nullptr,
                               rec.view->snap->upstream(upstream).id, method);
}

// The policy's decision for the task method at `upstream` on the request's audit event.
void note_decision(request_context& rec, const policy::policy_decision& decided) {
    if (!rec.view->snap->policy)
        return;
    rec.policy.decision = decided.allowed ? "allow" : "deny";
    rec.policy.rule_id = decided.rule_id;
}

} // namespace

asio::awaitable<void> task_methods::pin_task(const request_context& rec, std::size_t upstream,
                                             std::string id) {
    const auto& owner = rec.view->snap->upstream(upstream).id;
    services_.records.pin(id, task_owner_key(rec), owner);
    // The fleet's record is written before the client hears of the task, so its next call
    // may land on any instance.
    co_await services_.records.put_fleet_record(id, fleet_task_record(task_owner_key(rec), owner));
}

asio::awaitable<std::optional<actors::task_owner>>
task_methods::owner_of(const std::string& task_id, request_context& rec) {
    auto principal = task_owner_key(rec);
    auto owner = co_await services_.records.find(task_id, principal);
    if (!owner || owner->what != actors::task_owner::kind::unknown)
        co_return owner;
    // Minted through another instance of the fleet: its record says whose it is.
    auto record = co_await services_.records.fleet_record(task_id);
    if (!record)
        co_return owner;
    owner = from_fleet_record(*record, principal);
    if (owner->what == actors::task_owner::kind::owned)
        services_.records.pin(task_id, principal, owner->upstream);
    else if (owner->what == actors::task_owner::kind::located)
        services_.records.locate(task_id, owner->upstream);
    co_return owner;
}

asio::awaitable<std::optional<std::size_t>> task_methods::holder(const std::string& task_id,
                                                                 request_context& rec) {
    auto owner = co_await owner_of(task_id, rec);
    if (!owner || (owner->what != actors::task_owner::kind::owned &&
                   owner->what != actors::task_owner::kind::located))
        co_return std::nullopt;
    auto at = rec.view->snap->upstream_by_id.find(owner->upstream);
    if (at == rec.view->snap->upstream_by_id.end() || !tenant_sees(rec, at->second) ||
        !task_policy(rec, at->second, "tasks/get").allowed)
        co_return std::nullopt;
    co_return at->second;
}

asio::awaitable<json::object> task_methods::task_call(const json::value& id,
                                                      const std::string& method,
                                                      json::object params, request_context& rec) {
    if (method == "tasks/list")
        co_return co_await list(id, params, rec);
    if (method != "tasks/get" && method != "tasks/result" && method != "tasks/cancel" &&
        method != "tasks/update")
        co_return refusal(rec, id, gateway_error::method_not_found, {method});
    auto* task_value = params.if_contains("taskId");
    if (!task_value || !task_value->is_string() || task_value->get_string().empty())
        co_return refusal(rec, id, gateway_error::invalid_params,
                          {"taskId must be a non-empty string"});
    std::string task_id(task_value->get_string());
    rec.name = task_id;
    auto owner = co_await owner_of(task_id, rec);
    if (!owner)
        co_return refusal(rec, id, gateway_error::internal_error, {"task keeper unavailable"});
    if (owner->what == actors::task_owner::kind::foreign)
        co_return unknown_task(rec, id, task_id);
    // The record names its upstream by id; one this view no longer has (a reload removed
    // it) is as good as no record: the probe finds whoever holds the task now.
    std::size_t owner_index = 0;
    if (owner->what == actors::task_owner::kind::owned ||
        owner->what == actors::task_owner::kind::located) {
        auto at = rec.view->snap->upstream_by_id.find(owner->upstream);
        if (at == rec.view->snap->upstream_by_id.end())
            owner = actors::task_owner{};
        else
            owner_index = at->second;
    }
    if (owner->what == actors::task_owner::kind::unknown) {
        auto found = co_await find_by_probe(id, method, task_id, rec);
        if (auto* answer = std::get_if<json::object>(&found))
            co_return std::move(*answer);
        auto& [answered, probed] = std::get<probe>(found);
        if (method == "tasks/get") {
            // The probe was the call: the policy allowed it there (reach).
            note_decision(rec, task_policy(rec, answered, method));
            rec.upstream = rec.view->snap->upstream(answered).id;
            co_return co_await judged(std::move(probed), id, method, task_id, rec);
        }
        owner_index = answered;
    }
    if (auto refused = co_await guards(id, method, task_id, owner_index, rec))
        co_return std::move(*refused);
    rec.upstream = rec.view->snap->upstream(owner_index).id;
    if (method == "tasks/update")
        if (auto refused = co_await refused_update(id, task_id, owner_index, params, rec))
            co_return std::move(*refused);
    auto reply = co_await services_.upstreams.call_upstream(owner_index, method, std::move(params),
                                                            rec, true);
    if (auto* f = std::get_if<upstream_failure>(&reply))
        co_return refuse_upstream(rec, id, *rec.upstream, *f);
    co_return co_await judged(std::move(std::get<upstream_message>(reply)), id, method, task_id,
                              rec);
}

// The owner's answer, errors included, passes through verbatim; what it carries for the client
// is judged (pipeline::client_bound, docs/decision-hook.md): a task's result, at tasks/result
// and at a 2026-07-28 tasks/get that carries it inline, and the input requests such a tasks/get
// carries, as the upstream's requests to the client they are.
asio::awaitable<json::object> task_methods::judged(upstream_message reply, const json::value& id,
                                                   const std::string& method,
                                                   const std::string& task_id,
                                                   request_context& rec) {
    bool links = (method == "tasks/result" || method == "tasks/get") &&
                 judge_.links_icons(*rec.view->snap, reply.raw());
    bool read_whole =
        links || (method == "tasks/result" && judge_.result_hook(rec)) ||
        (method == "tasks/get" && (judge_.result_hook(rec) || judge_.judges_input(rec)));
    auto answer = pass_on(std::move(reply), id, rec,
                          read_whole ? answer_read::whole : answer_read::client_answer);
    if (!read_whole)
        co_return answer;
    if (links) // before the hook: it is shown what the client would be, as at stage 8
        link_icons(answer, method, rec);
    auto verdict = pipeline::verdict::proceed;
    if (method == "tasks/result") {
        verdict = co_await judge_.judge_result(
            rec, answer, *rec.upstream, task_id,
            "the result of task " + task_id + " on " + *rec.upstream +
                (rec.who.caller ? " for " + rec.who.caller->subject : ""));
    } else if (const auto* r = answer.if_contains("result"); r && r->is_object()) {
        verdict = co_await judge_.judge_task(rec, r->get_object(), task_id, *rec.upstream);
    }
    if (verdict == pipeline::verdict::answered)
        co_return std::move(*rec.answer.response);
    co_return answer;
}

// A task's result is a call's: its resource links' icons from gate's origin, as stage 8 has
// them for the call's own answer. At tasks/result the answer's result is the call's; a
// 2026-07-28 tasks/get carries it inline.
void task_methods::link_icons(json::object& answer, const std::string& method,
                              request_context& rec) const {
    auto* r = answer.if_contains("result");
    auto* result = r ? r->if_object() : nullptr;
    if (result && method == "tasks/get") {
        auto* inline_result = result->if_contains("result");
        result = inline_result ? inline_result->if_object() : nullptr;
    }
    if (result && judge_.link_icons(*rec.view->snap, *rec.upstream, method, *result) &&
        !rec.answer.verbatim.empty())
        pipeline::write_again(rec.answer.verbatim, answer);
}

// A tasks/update answers the task's input requests: one the client could not have been shown
// (client_bound refuses it) is not answered upstream either. What the task asks is what its
// owner's tasks/get says now; a task gate cannot ask after is not updated.
asio::awaitable<std::optional<json::object>>
task_methods::refused_update(const json::value& id, const std::string& task_id, std::size_t owner,
                             const json::object& params, request_context& rec) {
    const auto* responses = params.if_contains("inputResponses");
    const auto* answered = responses ? responses->if_object() : nullptr;
    if (!answered || answered->empty() || !judge_.judges_input(rec))
        co_return std::nullopt;
    auto asked = co_await services_.upstreams.call_upstream(
        owner, "tasks/get", json::object{{"taskId", task_id}}, rec, false);
    if (auto* f = std::get_if<upstream_failure>(&asked))
        co_return refuse_upstream(rec, id, *rec.upstream, *f);
    // Asking nothing now, it asks none of the keys answered: each is refused as unasked.
    auto requests = std::get<upstream_message>(asked).value_at({"result", "inputRequests"});
    if (!requests)
        requests = json::object();
    if (co_await judge_.judge_input_requests(rec, &*requests, *rec.upstream, answered) ==
        pipeline::verdict::answered)
        co_return std::move(*rec.answer.response);
    co_return std::nullopt;
}

asio::awaitable<std::optional<json::object>>
task_methods::guards(const json::value& id, const std::string& method, const std::string& task_id,
                     std::size_t upstream, request_context& rec) {
    // An upstream the tenant does not see holds no task of this caller's, as far as the
    // caller can tell: the same answer as an unknown id.
    if (!tenant_sees(rec, upstream))
        co_return unknown_task(rec, id, task_id);
    auto decided = task_policy(rec, upstream, method);
    note_decision(rec, decided);
    const auto& server = rec.view->snap->upstream(upstream).id;
    if (!decided.allowed) {
        co_return refusal(rec, id, gateway_error::policy_denied,
                          {method + " of " + task_id + " on " + server +
                           (rec.who.caller ? " for " + rec.who.caller->subject : "")});
    }
    if (auto spent = co_await services_.charges.charge(rec, upstream))
        co_return budget_refusal(rec, *spent);
    co_return std::nullopt;
}

asio::awaitable<std::vector<std::size_t>>
task_methods::reach(std::string_view method, request_context& rec,
                    std::optional<actors::budget_ledger::exhausted>& refused) {
    // Each upstream the method may reach, charged: an upstream over its own budget is left
    // out; the server's or the tenant's refuses the whole request (as for a list).
    std::vector<std::size_t> reach;
    for (std::size_t i = 0; i < rec.view->snap->size(); ++i) {
        if (!tenant_sees(rec, i) || !task_policy(rec, i, method).allowed)
            continue;
        if (auto spent = co_await services_.charges.charge(rec, i)) {
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

asio::awaitable<std::variant<task_methods::probe, json::object>>
task_methods::find_by_probe(const json::value& id, const std::string& method,
                            const std::string& task_id, request_context& rec) {
    // No record (minted before a restart, or by a call gate did not see): ask the upstreams
    // the caller may reach, read-only, who holds it. Only the owner that answered gets the
    // method; where it was found is remembered for anyone (a probe never takes ownership).
    std::optional<actors::budget_ledger::exhausted> refused;
    auto reached = co_await reach(method, rec, refused);
    if (refused)
        co_return budget_refusal(rec, *refused);
    auto probes = co_await transport::fan_out<upstream_reply>(
        reached.size(), [&](std::size_t k) -> asio::awaitable<upstream_reply> {
            // Probes are not the client's call: nothing to cancel.
            co_return co_await services_.upstreams.call_upstream(
                reached[k], "tasks/get", json::object{{"taskId", task_id}}, rec, false);
        });
    for (std::size_t k = 0; k < probes.size(); ++k) {
        if (!probes[k] || !has_result(*probes[k]))
            continue;
        const auto& holder = rec.view->snap->upstream(reached[k]).id;
        services_.records.locate(task_id, holder);
        co_await services_.records.put_fleet_record(task_id, fleet_located_record(holder));
        co_return probe{reached[k], std::move(std::get<upstream_message>(*probes[k]))};
    }
    co_return unknown_task(rec, id, task_id);
}

asio::awaitable<json::object> task_methods::list(const json::value& id, const json::object& params,
                                                 request_context& rec) {
    std::optional<std::string> cursor;
    if (auto* c = params.if_contains("cursor"); c && c->is_string())
        cursor = std::string(c->get_string());
    else if (c && !c->is_null())
        co_return refusal(rec, id, gateway_error::invalid_cursor, {"not a string"});
    // A client's tasks live in its own upstream sessions: fetched fresh, never cached, from
    // the upstreams the caller may reach, each charged.
    std::optional<actors::budget_ledger::exhausted> refused;
    auto reached = co_await reach("tasks/list", rec, refused);
    if (refused)
        co_return budget_refusal(rec, *refused);
    auto lists = co_await transport::fan_out<std::optional<json::array>>(
        reached.size(), [&](std::size_t k) -> asio::awaitable<std::optional<json::array>> {
            auto i = reached[k];
            ++rec.audit.upstream_calls;
            auto r = co_await services_.upstreams.fetch_tasks(i, rec);
            if (auto* f = std::get_if<upstream_failure>(&r)) {
                spdlog::warn("upstream {} left out of tasks/list: {}",
                             rec.view->snap->upstream(i).id, f->message);
                co_return std::nullopt;
            }
            co_return std::move(std::get<json::array>(r));
        });
    std::vector<protocol::upstream_items> parts_by_upstream;
    for (std::size_t k = 0; k < lists.size(); ++k)
        if (lists[k] && *lists[k])
            parts_by_upstream.push_back({reached[k], &**lists[k]});
    if (parts_by_upstream.empty() && !reached.empty())
        co_return refusal(rec, id, gateway_error::all_upstreams_down);
    auto merged = protocol::merge_by_id("taskId", parts_by_upstream);
    co_return list_response(
        co_await services_.pages.page(rec, std::move(merged), std::move(cursor)), id, rec);
}

} // namespace gate::gateway
