// Each operation forwards to the part that answers it; the coroutines the stages await are the
// parts' own, except where the fleet's store is asked before an actor.
#include "gateway/entry/guard_stage_services.hpp"

#include "actors/guards/budget_keeper.hpp"
#include "actors/guards/limiter.hpp"
#include "gateway/entry/gateway_impl.hpp"
#include "transport/bridge.hpp"

#include <caf/send.hpp>

namespace gate::transport {

std::optional<guard_stage_services::result>
guard_stage_services::authenticate_now(std::optional<std::string_view> authorization,
                                       bool query_token) {
    return g_.authenticator->authenticate_now(authorization, query_token);
}

boost::asio::awaitable<guard_stage_services::result>
guard_stage_services::authenticate(std::optional<std::string_view> authorization,
                                   bool query_token) {
    return g_.authenticator->authenticate(authorization, query_token);
}

bool guard_stage_services::limiting() const {
    return static_cast<bool>(g_.actors()->limiter);
}

boost::asio::awaitable<std::optional<guard_stage_services::batch>>
guard_stage_services::take_shared(const std::string& scope, std::int64_t per_minute,
                                  const slot_demand& demand) {
    if (!g_.fleet)
        co_return std::nullopt;
    co_return co_await g_.fleet->take_window(scope, per_minute, demand);
}

boost::asio::awaitable<std::optional<guard_stage_services::batch>>
guard_stage_services::take_local(pipeline::limit_window window, const std::string& key,
                                 std::int64_t per_minute, const slot_demand& demand) {
    auto limiter = g_.actors()->limiter;
    switch (window) {
    case pipeline::limit_window::global:
        co_return co_await ask<batch>(limiter, [&](reply_to<batch> r) {
            return limit_ask{per_minute, demand, std::move(r)};
        });
    case pipeline::limit_window::tenant:
        co_return co_await ask<batch>(limiter, [&](reply_to<batch> r) {
            return tenant_limit_ask{key, per_minute, demand, std::move(r)};
        });
    case pipeline::limit_window::principal:
        break;
    }
    co_return co_await ask<batch>(limiter, [&](reply_to<batch> r) {
        return principal_limit_ask{key, per_minute, demand, std::move(r)};
    });
}

boost::asio::awaitable<std::optional<guard_stage_services::batch>>
guard_stage_services::take_tool(const std::string& scope, const std::string& principal,
                                std::int64_t per_minute, const slot_demand& demand) {
    co_return co_await ask<batch>(g_.actors()->limiter, [&](reply_to<batch> r) {
        return tool_limit_ask{scope, principal, per_minute, demand, std::move(r)};
    });
}

boost::asio::awaitable<std::optional<std::int64_t>>
guard_stage_services::reserve(const budget_ledger::account_ref& ref, wall_time now) {
    auto keeper = g_.actors()->budgets;
    if (g_.fleet) {
        // The fleet's allowance; the keeper counts what this instance took of it, so a store
        // that stops answering leaves this instance's real use as its own count.
        if (auto got = co_await g_.fleet->reserve_budget(ref.key + ":" + ref.budget->period,
                                                         ref.budget->upstream_calls,
                                                         period_end(ref.budget->period, now))) {
            if (*got > 0 && keeper)
                caf::anon_send(keeper, budget_reserved_elsewhere{ref.key, *ref.budget, *got});
            co_return got;
        }
    }
    if (!keeper)
        co_return std::nullopt;
    co_return co_await ask<std::int64_t>(keeper, [&](reply_to<std::int64_t> r) {
        return budget_reserve_ask{ref.key, *ref.budget, std::move(r)};
    });
}

pipeline::audit_services::open_sinks guard_stage_services::sinks() const {
    auto actors = g_.actors();
    return {static_cast<bool>(actors->audit), static_cast<bool>(actors->spans),
            g_.on_request && *g_.on_request};
}

void guard_stage_services::audit(audit_event e) {
    g_.sinks.audit(std::move(e));
}

void guard_stage_services::spans(std::vector<std::string> spans) {
    g_.sinks.spans(std::move(spans));
}

void guard_stage_services::heard(request_context& ctx) {
    g_.heard_exit(ctx);
}

void guard_stage_services::finished(const request_context& ctx) {
    (*g_.on_request)(ctx);
}

} // namespace gate::transport
