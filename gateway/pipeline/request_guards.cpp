#include "gateway/pipeline/request_guards.hpp"

#include "actors/bridge.hpp"
#include "actors/guards/budget_keeper.hpp"
#include "actors/guards/limiter.hpp"

#include <caf/send.hpp>

namespace gate::gateway::pipeline {

bool request_guards::limiting() const {
    return static_cast<bool>(actors_.load()->limiter);
}

boost::asio::awaitable<std::optional<request_guards::batch>>
request_guards::take_shared(const std::string& scope, std::int64_t per_minute,
                            const actors::slot_demand& demand) {
    if (!fleet_)
        co_return std::nullopt;
    co_return co_await fleet_->take_window(scope, per_minute, demand);
}

boost::asio::awaitable<std::optional<request_guards::batch>>
request_guards::take_local(limit_window window, const std::string& key, std::int64_t per_minute,
                           const actors::slot_demand& demand) {
    auto limiter = actors_.load()->limiter;
    switch (window) {
    case limit_window::global:
        co_return co_await actors::ask<batch>(limiter, [&](actors::reply_to<batch> r) {
            return actors::limit_ask{per_minute, demand, std::move(r)};
        });
    case limit_window::tenant:
        co_return co_await actors::ask<batch>(limiter, [&](actors::reply_to<batch> r) {
            return actors::tenant_limit_ask{key, per_minute, demand, std::move(r)};
        });
    case limit_window::principal:
        break;
    }
    co_return co_await actors::ask<batch>(limiter, [&](actors::reply_to<batch> r) {
        return actors::principal_limit_ask{key, per_minute, demand, std::move(r)};
    });
}

boost::asio::awaitable<std::optional<request_guards::batch>>
request_guards::take_tool(const std::string& scope, const std::string& principal,
                          std::int64_t per_minute, const actors::slot_demand& demand) {
    co_return co_await actors::ask<batch>(actors_.load()->limiter, [&](actors::reply_to<batch> r) {
        return actors::tool_limit_ask{scope, principal, per_minute, demand, std::move(r)};
    });
}

boost::asio::awaitable<std::optional<std::int64_t>>
request_guards::reserve(const actors::budget_ledger::account_ref& ref, actors::wall_time now) {
    auto keeper = actors_.load()->budgets;
    if (fleet_) {
        // The fleet's allowance; the keeper counts what this instance took of it, so a store
        // that stops answering leaves this instance's real use as its own count.
        if (auto got = co_await fleet_->reserve_budget(
                ref.key + ":" + ref.budget->period, ref.budget->upstream_calls,
                actors::period_end(ref.budget->period, now))) {
            if (*got > 0 && keeper)
                caf::anon_send(keeper,
                               actors::budget_reserved_elsewhere{ref.key, *ref.budget, *got});
            co_return got;
        }
    }
    if (!keeper)
        co_return std::nullopt;
    co_return co_await actors::ask<std::int64_t>(keeper, [&](actors::reply_to<std::int64_t> r) {
        return actors::budget_reserve_ask{ref.key, *ref.budget, std::move(r)};
    });
}

} // namespace gate::gateway::pipeline
