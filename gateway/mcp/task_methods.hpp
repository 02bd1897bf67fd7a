// The task methods through the gateway (spec rule 10), over the few services they need: a
// tools/call that mints a task pins it to its upstream for the calling principal; tasks/get,
// tasks/result, tasks/cancel and tasks/update go to that owner, or to the one upstream that
// answers a read-only tasks/get probe; tasks/list merges every upstream by task id and pages
// like the other lists. Every upstream a task method reaches is one the caller's tenant sees
// and the policy grants the method at, each invocation charged (docs/security.md).
#pragma once

#include "actors/federation/federation.hpp"
#include "actors/federation/task_registry.hpp"
#include "actors/guards/budget_ledger.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/step.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::transport {

class hook_asker;

// Whose tasks a request sees (the principal; every anonymous caller shares one owner).
std::uint64_t task_owner_key(const request_context& rec);

// What the task methods ask of the gateway: the task keeper, the fleet's records, the budgets,
// the upstreams and the tasks router. Answered by gateway/entry/mcp_method_services; a fake in
// tests/unit/task_methods_test.cpp.
class task_services {
public:
    using list_page = std::optional<std::variant<list_answer, route_error>>;

    // The keeper's record of `task_id` as `principal` sees it (unknown without a keeper);
    // nullopt when the keeper did not answer.
    virtual boost::asio::awaitable<std::optional<task_owner>> find(const std::string& task_id,
                                                                   std::uint64_t principal) = 0;
    // Tells the keeper who owns a task, or where a probe found it (no keeper: nothing).
    virtual void pin(const std::string& task_id, std::uint64_t principal,
                     const std::string& upstream) = 0;
    virtual void locate(const std::string& task_id, const std::string& upstream) = 0;
    // The record the fleet's store keeps of a task (nullopt: none, or no store), and writing it.
    virtual boost::asio::awaitable<std::optional<std::string>>
    fleet_record(const std::string& task_id) = 0;
    virtual boost::asio::awaitable<void> put_fleet_record(const std::string& task_id,
                                                          std::string record) = 0;
    // Charges one invocation at `upstream`: what is spent, if anything (stage 6's budgets).
    virtual boost::asio::awaitable<std::optional<budget_ledger::exhausted>>
    charge(const request_context& ctx, std::size_t upstream) = 0;
    // One call at `upstream` (stage 7's); `client_call` false for gate's own probes.
    virtual boost::asio::awaitable<upstream_reply> call(std::size_t upstream,
                                                        std::string_view method,
                                                        boost::json::object params,
                                                        request_context& ctx, bool client_call) = 0;
    // The caller's complete tasks/list at `upstream`, on its bridged session.
    virtual boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch_tasks(std::size_t upstream, request_context& ctx) = 0;
    // The page of the merged tasks the cursor asks for (the tasks router).
    virtual boost::asio::awaitable<list_page> page(request_context& ctx, boost::json::array merged,
                                                   std::optional<std::string> cursor) = 0;
    // Where policy.decisionHook is asked about a task's result (null: never).
    virtual hook_asker* decision_hook() = 0;

protected:
    ~task_services() = default;
};

class task_methods {
public:
    explicit task_methods(task_services& services) : services_(services) {}

    // tasks/get, tasks/result, tasks/cancel, tasks/update to the owner; tasks/list merged and
    // paged; any other tasks/ method is unknown.
    boost::asio::awaitable<boost::json::object> call(const boost::json::value& id,
                                                     const std::string& method,
                                                     boost::json::object params,
                                                     request_context& rec);
    // The task a tools/call answer minted (minted_task_id) is pinned to `upstream` for the
    // caller; the fleet's record is written before the client hears of the task.
    boost::asio::awaitable<void> pin_minted(const request_context& rec, std::size_t upstream,
                                            std::string task_id);
    // The upstream (its position in the view) holding `task_id` for the caller of `rec`, when
    // gate has a record of it (its own, the fleet's, a probe's) and the caller may ask after it
    // there (tenant, policy on tasks/get); nullopt otherwise. Nothing is probed.
    boost::asio::awaitable<std::optional<std::size_t>> holder(const std::string& task_id,
                                                              request_context& rec);

private:
    // The answer for the client, judged by the decision hook where it carries a result.
    boost::asio::awaitable<boost::json::object>
    judged(upstream_message reply, const boost::json::value& id, const std::string& method,
           const std::string& task_id, request_context& rec);
    // The decision hook, when it judges results and `method` is tasks/result or tasks/get;
    // else null.
    const config::decision_hook* result_hook(const request_context& rec, std::string_view method);
    // The hook's say on a task's result (`answer`, read whole): answered when withheld, the
    // refusal on `rec`.
    boost::asio::awaitable<pipeline::verdict> judge_task_result(const config::decision_hook& hook,
                                                                const boost::json::object& answer,
                                                                const std::string& task_id,
                                                                request_context& rec);
    // Which reachable upstream holds a task nobody has a record of, and its tasks/get answer.
    struct probe {
        std::size_t upstream;
        upstream_message answer;
    };
    boost::asio::awaitable<boost::json::object>
    list(const boost::json::value& id, const boost::json::object& params, request_context& rec);
    // The owner's record, from the keeper and else the fleet's store.
    boost::asio::awaitable<std::optional<task_owner>> owner_of(const std::string& task_id,
                                                               request_context& rec);
    // The guards of one task method at `upstream`: tenant, policy, budgets. The refusal, if
    // any (decision, outcome and error on `rec`).
    boost::asio::awaitable<std::optional<boost::json::object>>
    guards(const boost::json::value& id, const std::string& method, const std::string& task_id,
           std::size_t upstream, request_context& rec);
    // The upstreams a task method fans out to (probes, tasks/list), each charged; `refused`
    // set when the server's or the tenant's budget is spent.
    boost::asio::awaitable<std::vector<std::size_t>>
    reach(std::string_view method, request_context& rec,
          std::optional<budget_ledger::exhausted>& refused);
    boost::asio::awaitable<std::variant<probe, boost::json::object>>
    find_by_probe(const boost::json::value& id, const std::string& method,
                  const std::string& task_id, request_context& rec);

    task_services& services_;
};

} // namespace gate::transport
