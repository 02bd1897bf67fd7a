// Stage 9, the single exit: exactly one audit event per terminal response and one
// gate_requests_total increment (or one gate_http_rejections_total increment for a refusal
// before MCP handling, audited with method `http`). The chain guarantees it runs once.
#include "gateway/pipeline/s9_audit.hpp"

#include "gateway/pipeline/client_answer.hpp"
#include "gateway/pipeline/request_tracing.hpp"
#include "gateway/pipeline/request_traffic.hpp"

#include <chrono>

namespace gate::gateway::pipeline {

namespace {

// The configured owner of the request's upstream: the fields set (none set: no owner).
std::optional<boost::json::object> audited_owner(const request_context& ctx) {
    if (!ctx.upstream || !ctx.view || !ctx.view->snap)
        return std::nullopt;
    const auto& snap = *ctx.view->snap;
    auto it = snap.upstream_by_id.find(*ctx.upstream);
    if (it == snap.upstream_by_id.end())
        return std::nullopt;
    const auto& owner = snap.upstream(it->second).owner;
    if (!owner)
        return std::nullopt;
    boost::json::object out;
    for (auto [key, value] : {std::pair{"org", &owner->org}, std::pair{"team", &owner->team},
                              std::pair{"contact", &owner->contact}})
        if (*value)
            out[key] = **value;
    if (out.empty())
        return std::nullopt;
    return out;
}

class audit final : public exit_stage {
public:
    audit(audit_services& sinks, metrics& stats, traffic_history* traffic)
        : sinks_(sinks), stats_(stats), traffic_(traffic) {}
    void exit(request_context& ctx) override {
        // A stage that answered early (route's -32043, a guard's -32041) left its outcome in
        // the answer.
        if (ctx.answer.response && !ctx.answer.rejection)
            settle_outcome(ctx, *ctx.answer.response);
        auto now = std::chrono::steady_clock::now();
        double seconds = std::chrono::duration<double>(now - ctx.admission.start).count();
        if (traffic_)
            count_traffic(*traffic_, ctx, now - ctx.admission.start, now);
        if (ctx.answer.rejection)
            stats_.rejection(*ctx.answer.rejection);
        else
            stats_.request(ctx.method, ctx.audit.outcome, seconds, ctx.audit.upstream_calls);
        if (ctx.who.tenant)
            stats_.tenant_request(*ctx.who.tenant, ctx.audit.outcome, ctx.audit.upstream_calls);
        if (ctx.policy.decision)
            stats_.policy_decision(ctx.policy.required_scopes.empty() ? *ctx.policy.decision
                                                                      : "step_up",
                                   ctx.policy.rule_id);
        auto open = sinks_.sinks();
        if (auto spans = finish_trace(ctx); !spans.empty() && open.spans)
            sinks_.spans(std::move(spans));
        if (open.audit) {
            actors::audit_event e;
            e.time = std::chrono::system_clock::now();
            e.method = ctx.answer.rejection ? "http" : ctx.method;
            e.name = ctx.name;
            e.upstream = ctx.upstream;
            e.owner = audited_owner(ctx);
            e.outcome = ctx.audit.outcome;
            e.error = ctx.audit.error;
            e.latency_ms = seconds * 1000;
            e.upstream_calls = ctx.audit.upstream_calls;
            e.items_served = ctx.audit.items_served;
            e.usage = std::move(ctx.audit.usage);
            e.tenant = ctx.who.tenant;
            e.decision = ctx.policy.decision;
            e.rule_id = ctx.policy.rule_id;
            e.required_scopes = ctx.policy.required_scopes;
            e.hook = std::move(ctx.policy.hook);
            if (ctx.who.caller) {
                e.principal = ctx.who.caller->subject;
                e.issuer = ctx.who.caller->issuer;
            }
            sinks_.audit(std::move(e)); // a drop is counted in the audit tally
        }
        if (ctx.message.heard)
            sinks_.heard(ctx);
        if (!ctx.answer.rejection && open.hooked)
            sinks_.finished(ctx);
    }

private:
    audit_services& sinks_;
    metrics& stats_;
    traffic_history* traffic_;
};

} // namespace

std::unique_ptr<exit_stage> make_audit(audit_services& sinks, metrics& stats,
                                       traffic_history* traffic) {
    return std::make_unique<audit>(sinks, stats, traffic);
}

} // namespace gate::gateway::pipeline
