// Stage 9, the single exit: exactly one audit event per terminal response and one
// gate_requests_total increment (or one gate_http_rejections_total increment for a refusal
// before MCP handling, audited with method `http`). The chain guarantees it runs once.
#include "actors/sinks/audit_event.hpp"
#include "gateway/entry/gateway_impl.hpp"
#include "gateway/operations/request_tracing.hpp"
#include "gateway/pipeline/gateway_stages.hpp"

#include <caf/send.hpp>

namespace gate::transport::pipeline {

namespace {

class audit final : public exit_stage {
public:
    explicit audit(gateway::impl& g) : g_(g) {}
    void exit(request_context& ctx) override {
        // A stage that answered early (route's -32043, a guard's -32041) left its outcome in
        // the answer.
        if (ctx.response && !ctx.rejection)
            settle_outcome(ctx, *ctx.response);
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx.start).count();
        if (ctx.rejection)
            g_.stats.rejection(*ctx.rejection);
        else
            g_.stats.request(ctx.method, ctx.outcome, seconds, ctx.upstream_calls);
        if (ctx.tenant)
            g_.stats.tenant_request(*ctx.tenant, ctx.outcome, ctx.upstream_calls);
        auto actors = g_.actors();
        if (auto spans = finish_trace(ctx); !spans.empty() && actors->spans)
            g_.queue_spans(std::move(spans));
        if (actors->audit) {
            audit_event e;
            e.time = std::chrono::system_clock::now();
            e.method = ctx.rejection ? "http" : ctx.method;
            e.name = ctx.name;
            e.upstream = ctx.upstream;
            e.outcome = ctx.outcome;
            e.error = ctx.error;
            e.latency_ms = seconds * 1000;
            e.upstream_calls = ctx.upstream_calls;
            e.items_served = ctx.items_served;
            e.usage = std::move(ctx.usage);
            e.tenant = ctx.tenant;
            e.decision = ctx.decision;
            e.rule_id = ctx.rule_id;
            if (ctx.caller) {
                e.principal = ctx.caller->subject;
                e.issuer = ctx.caller->issuer;
            }
            g_.queue_audit(std::move(e)); // a drop is counted in the audit tally
        }
        if (ctx.heard)
            g_.heard_exit(ctx);
        if (!ctx.rejection && g_.on_request && *g_.on_request)
            (*g_.on_request)(ctx);
    }

private:
    gateway::impl& g_;
};

} // namespace

std::unique_ptr<exit_stage> make_audit(gateway::impl& g) {
    return std::make_unique<audit>(g);
}

} // namespace gate::transport::pipeline
