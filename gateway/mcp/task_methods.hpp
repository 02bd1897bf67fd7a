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
#include "gateway/pipeline/budget_charger.hpp"
#include "gateway/pipeline/call_services.hpp"
#include "gateway/pipeline/client_bound.hpp"
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

namespace gate::gateway {

class hook_asker;

// Whose tasks a request sees (the principal; every anonymous caller shares one owner).
std::uint64_t task_owner_key(const request_context& rec);

// The task keeper's records (actors/federation/task_keeper) and the fleet's: task_ledger.
class task_records {
public:
    // The keeper's record of `task_id` as `principal` sees it (unknown without a keeper);
    // nullopt when the keeper did not answer.
    virtual boost::asio::awaitable<std::optional<actors::task_owner>>
    find(const std::string& task_id, std::uint64_t principal) = 0;
    // Tells the keeper who owns a task, or where a probe found it (no keeper: nothing).
    virtual void pin(const std::string& task_id, std::uint64_t principal,
                     const std::string& upstream) = 0;
    virtual void locate(const std::string& task_id, const std::string& upstream) = 0;
    // The record the fleet's store keeps of a task (nullopt: none, or no store), and writing it.
    virtual boost::asio::awaitable<std::optional<std::string>>
    fleet_record(const std::string& task_id) = 0;
    virtual boost::asio::awaitable<void> put_fleet_record(const std::string& task_id,
                                                          std::string record) = 0;

protected:
    ~task_records() = default;
};

// A task method at an upstream: upstream_calls.
class task_upstreams {
public:
    // One call at `upstream` (stage 7's); `client_call` false for gate's own probes.
    virtual boost::asio::awaitable<upstream_reply>
    call_upstream(std::size_t upstream, std::string_view method, boost::json::object params,
                  request_context& ctx, bool client_call) = 0;
    // The caller's complete tasks/list at `upstream`, on its bridged session.
    virtual boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch_tasks(std::size_t upstream, request_context& ctx) = 0;

protected:
    ~task_upstreams() = default;
};

// The page of the merged tasks the cursor asks for: the tasks router (router_line).
class task_pages {
public:
    using list_page = std::optional<std::variant<actors::list_answer, actors::route_error>>;
    virtual boost::asio::awaitable<list_page> page(request_context& ctx, boost::json::array merged,
                                                   std::optional<std::string> cursor) = 0;

protected:
    ~task_pages() = default;
};

// What the task methods are given, each part by its owner; fakes in
// tests/unit/task_methods_test.cpp.
struct task_services {
    task_records& records;
    invocation_charges& charges; // stage 6's budgets
    task_upstreams& upstreams;
    task_pages& pages;
    hook_asker* hook; // where policy.decisionHook is asked about a task's result (null: never)
    pipeline::icon_rewriter& icons; // a task's result's icons, as a call's (client_bound)
};

// Stages 7 and 8 run a task method and pin a minted task through it
// (pipeline::task_stage_services).
class task_methods final : public pipeline::task_stage_services {
public:
    explicit task_methods(task_services services)
        : services_(services), judge_(services.hook, &services.icons) {}

    // tasks/get, tasks/result, tasks/cancel, tasks/update to the owner; tasks/list merged and
    // paged; any other tasks/ method is unknown.
    boost::asio::awaitable<boost::json::object> task_call(const boost::json::value& id,
                                                          const std::string& method,
                                                          boost::json::object params,
                                                          request_context& rec) override;
    // The task a tools/call answer minted (minted_task_id) is pinned to `upstream` for the
    // caller; the fleet's record is written before the client hears of the task.
    boost::asio::awaitable<void> pin_task(const request_context& rec, std::size_t upstream,
                                          std::string task_id) override;
    // The upstream (its position in the view) holding `task_id` for the caller of `rec`, when
    // gate has a record of it (its own, the fleet's, a probe's) and the caller may ask after it
    // there (tenant, policy on tasks/get); nullopt otherwise. Nothing is probed.
    boost::asio::awaitable<std::optional<std::size_t>> holder(const std::string& task_id,
                                                              request_context& rec);

private:
    // The answer for the client, judged (pipeline::client_bound) where it carries a task's
    // result or input requests.
    boost::asio::awaitable<boost::json::object>
    judged(upstream_message reply, const boost::json::value& id, const std::string& method,
           const std::string& task_id, request_context& rec);
    // Egress of a task's result in `answer` (`method`'s, from rec's upstream).
    void link_icons(boost::json::object& answer, const std::string& method,
                    request_context& rec) const;
    // The refusal of a tasks/update whose inputResponses answer an input request of the task
    // that the client may not be asked (its owner at `owner` asked what it asks); nullopt: it
    // goes on.
    boost::asio::awaitable<std::optional<boost::json::object>>
    refused_update(const boost::json::value& id, const std::string& task_id, std::size_t owner,
                   const boost::json::object& params, request_context& rec);
    // Which reachable upstream holds a task nobody has a record of, and its tasks/get answer.
    struct probe {
        std::size_t upstream;
        upstream_message answer;
    };
    boost::asio::awaitable<boost::json::object>
    list(const boost::json::value& id, const boost::json::object& params, request_context& rec);
    // The owner's record, from the keeper and else the fleet's store.
    boost::asio::awaitable<std::optional<actors::task_owner>> owner_of(const std::string& task_id,
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
          std::optional<actors::budget_ledger::exhausted>& refused);
    boost::asio::awaitable<std::variant<probe, boost::json::object>>
    find_by_probe(const boost::json::value& id, const std::string& method,
                  const std::string& task_id, request_context& rec);

    task_services services_;
    pipeline::client_bound judge_;
};

} // namespace gate::gateway
