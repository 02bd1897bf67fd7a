// The request's guards: the rate windows (global, tenant, principal, tool: the limiter
// actor's) and the budgets (the budget keeper's), each asked of the fleet's shared store first
// where there is one; what the io thread holds of them: the leases of window slots and this
// instance's budget reservations; and the admission at the routed upstream, through the guards
// of the request's own view (never the live one: a reload mid-request does not move a call to
// another upstream's guards). Stages 3 and 6 and the task methods hold it through the
// interfaces it implements; a reload revokes the leases.
#pragma once

#include "actors/supervision/supervisor.hpp"
#include "gateway/fleet/shared_allowances.hpp"
#include "gateway/pipeline/budget_charger.hpp"
#include "gateway/pipeline/s3_global_limit.hpp"
#include "gateway/pipeline/s6_tool_limits.hpp"
#include "gateway/pipeline/s6_upstream_guards.hpp"
#include "gateway/upstream/live_federation.hpp"

#include <memory>

namespace gate::gateway::pipeline {

class request_guards final : public global_limit_services,
                             public tool_limit_services,
                             public budget_source,
                             public upstream_admission,
                             public view_adopter {
public:
    using batch = actors::sliding_window::batch; // the same type in both limit interfaces

    explicit request_guards(const actors::actor_directory& actors) : actors_(actors) {}
    request_guards(const request_guards&) = delete;
    request_guards& operator=(const request_guards&) = delete;

    // The fleet's store, asked first from now on (set once, before the first request).
    void share_through(std::shared_ptr<shared_allowances> fleet) { fleet_ = std::move(fleet); }

    limit_leases& leases() { return leases_; }
    // A reload: slots granted under the old limits go, the new ones hold from the next request.
    void adopt(const federation_view&) override { leases_.revoke_all(); }
    budget_charger& budgets() { return budgets_; }
    const budget_charger& budgets() const { return budgets_; }

private:
    // Stage 3 (and stage 6's tool limits): the limiter actor, and the fleet's store first.
    bool limiting() const override;
    boost::asio::awaitable<std::optional<batch>>
    take_shared(const std::string& scope, std::int64_t per_minute,
                const actors::slot_demand& demand) override;
    boost::asio::awaitable<std::optional<batch>>
    take_local(limit_window window, const std::string& key, std::int64_t per_minute,
               const actors::slot_demand& demand) override;
    boost::asio::awaitable<std::optional<batch>>
    take_tool(const std::string& scope, const std::string& principal, std::int64_t per_minute,
              const actors::slot_demand& demand) override;
    // The budgets (stage 6 and the task methods): the fleet's allowance, else the keeper's.
    boost::asio::awaitable<std::optional<std::int64_t>>
    reserve(const actors::budget_ledger::account_ref& account, actors::wall_time now) override;
    // Stage 6 at the routed upstream: its breaker and rate limit, from its guard board.
    std::optional<admission> admit_now(const request_context& ctx, std::size_t upstream) override {
        return ctx.view->client_at(upstream)->guards().admit_now(actors::guard_use::invocation);
    }
    boost::asio::awaitable<admission> admit(const request_context& ctx,
                                            std::size_t upstream) override {
        return ctx.view->client_at(upstream)->guards().admit(actors::guard_use::invocation);
    }
    bool modern(const request_context& ctx, std::size_t upstream) const override {
        return ctx.view->client_at(upstream)->modern();
    }

    const actors::actor_directory& actors_;
    std::shared_ptr<shared_allowances> fleet_;
    limit_leases leases_;
    budget_charger budgets_{*this};
};

} // namespace gate::gateway::pipeline
