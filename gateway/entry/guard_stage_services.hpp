// What the stages that admit and record a request (authenticate, the rate limits, the upstream
// guards' budgets and the audit exit) ask of the gateway, answered by its parts: the token
// authenticator, the limiter actor, the budget keeper actor and the sinks; the fleet's store before
// an actor, where there is one. Each stage sees only its own interface
// (gateway/pipeline/s2_authenticate.hpp ...), never gateway::impl.
#pragma once

#include "gateway/entry/gateway.hpp"
#include "gateway/pipeline/budget_charger.hpp"
#include "gateway/pipeline/s2_authenticate.hpp"
#include "gateway/pipeline/s3_global_limit.hpp"
#include "gateway/pipeline/s6_tool_limits.hpp"
#include "gateway/pipeline/s6_upstream_guards.hpp"
#include "gateway/pipeline/s9_audit.hpp"

namespace gate::transport {

class guard_stage_services final : public pipeline::authenticate_services,
                                   public pipeline::global_limit_services,
                                   public pipeline::tool_limit_services,
                                   public budget_source,
                                   public pipeline::audit_services {
public:
    using batch = sliding_window::batch; // the same type in both limit interfaces
    explicit guard_stage_services(gateway::impl& g) : g_(g) {}

    // Stage 2: the token authenticator (used only with auth.mode "required").
    std::optional<result> authenticate_now(std::optional<std::string_view> authorization,
                                           bool query_token) override;
    boost::asio::awaitable<result> authenticate(std::optional<std::string_view> authorization,
                                                bool query_token) override;

    // Stage 3 (and stage 6's tool limits): the limiter actor, and the fleet's store first
    // where there is one.
    bool limiting() const override;
    boost::asio::awaitable<std::optional<batch>> take_shared(const std::string& scope,
                                                             std::int64_t per_minute,
                                                             const slot_demand& demand) override;
    boost::asio::awaitable<std::optional<batch>> take_local(pipeline::limit_window window,
                                                            const std::string& key,
                                                            std::int64_t per_minute,
                                                            const slot_demand& demand) override;

    // Stage 6's tool limits: limiting() and take_shared() above, and the limiter's windows.
    boost::asio::awaitable<std::optional<batch>> take_tool(const std::string& scope,
                                                           const std::string& principal,
                                                           std::int64_t per_minute,
                                                           const slot_demand& demand) override;

    // Stage 6's budgets (and the task methods'): the fleet's allowance, else the keeper's.
    boost::asio::awaitable<std::optional<std::int64_t>>
    reserve(const budget_ledger::account_ref& account, wall_time now) override;

    // Stage 9: the sinks the gateway feeds once per turn of the io loop.
    open_sinks sinks() const override;
    void audit(audit_event e) override;
    void spans(std::vector<std::string> spans) override;
    void heard(request_context& ctx) override;
    void finished(const request_context& ctx) override;

private:
    gateway::impl& g_;
};

} // namespace gate::transport
