// Stage 7: proxy. The call goes to its upstream with the admission stage 6 granted, on the
// client's bridged session there; a list fetches the stale lists of every admitted upstream
// concurrently; task methods go to the task's owner (found by a probe when unpinned);
// logging/setLevel reaches every upstream session of the client; initialize is answered from
// the federation (or, in passthrough, by the upstream itself).
#include "gateway/pipeline/s7_proxy.hpp"

namespace gate::gateway::pipeline {

namespace {

class proxy final : public stage {
public:
    explicit proxy(proxy_services services) : services_(services) {}
    gateway::stage id() const override { return gateway::stage::proxy; }
    step run(request_context& ctx) override {
        // The call path: the call's own coroutine, with no frame of this stage's around it.
        if (plain_call(ctx))
            return services_.calls.call_routed(ctx);
        return call(ctx);
    }

private:
    // A routed call that is neither a task method nor a subscription at a 2026-07-28
    // upstream (those have their own services; stage 6 marks the latter).
    static bool plain_call(const request_context& ctx) {
        const auto& m = ctx.method;
        if (!ctx.routed.target || ctx.routed.plan || m == "initialize" || m == "logging/setLevel" ||
            m.starts_with("tasks/"))
            return false;
        return !ctx.guards.through_listen; // stage 6 found it held in gate's own listen
    }

    boost::asio::awaitable<verdict> call(request_context& ctx) {
        const auto& m = ctx.method;
        if (m == "initialize") {
            ctx.answer.response = co_await services_.calls.initialize(
                ctx.message.id, ctx.message.params, ctx.proxied.negotiated_version, ctx);
        } else if (m == "logging/setLevel") {
            ctx.answer.response = co_await services_.log_levels.set_log_level(
                ctx.client.session, ctx.message.id, ctx.message.params, ctx);
        } else if (m.starts_with("tasks/")) {
            ctx.answer.response = co_await services_.tasks.task_call(
                ctx.message.id, m, std::move(ctx.message.params), ctx);
        } else if (ctx.routed.plan) {
            // A list's, or the tools list a call of gate's own tools is answered from.
            auto kind =
                ctx.routed.gate_tool ? protocol::list_kind::tools : *protocol::list_kind_of(m);
            ctx.proxied.fetched = co_await services_.lists.fetch_lists(
                kind, *ctx.routed.plan, std::move(ctx.guards.list_admitted), ctx);
        } else if (ctx.routed.target) { // a subscription at a 2026-07-28 upstream (plain_call)
            ctx.answer.response = co_await services_.subscriptions.subscribe_at_modern_upstream(
                m, ctx.message.id, *ctx.routed.target, ctx);
        }
        co_return verdict::proceed;
    }

    proxy_services services_;
};

} // namespace

std::unique_ptr<stage> make_proxy(proxy_services services) {
    return std::make_unique<proxy>(services);
}

} // namespace gate::gateway::pipeline
