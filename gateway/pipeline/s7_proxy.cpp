// Stage 7: proxy. The call goes to its upstream with the admission stage 6 granted, on the
// client's bridged session there; a list fetches the stale lists of every admitted upstream
// concurrently; task methods go to the task's owner (found by a probe when unpinned);
// logging/setLevel reaches every upstream session of the client; initialize is answered from
// the federation (or, in passthrough, by the upstream itself).
#include "gateway/pipeline/s7_proxy.hpp"

#include "gateway/pipeline/client_answer.hpp"

namespace gate::transport::pipeline {

namespace {

class proxy final : public stage {
public:
    explicit proxy(proxy_services services) : services_(services) {}
    transport::stage id() const override { return transport::stage::proxy; }
    step run(request_context& ctx) override { return call(ctx); }

private:
    boost::asio::awaitable<verdict> call(request_context& ctx) {
        const auto& m = ctx.method;
        if (m == "initialize") {
            ctx.response = co_await services_.calls.initialize(ctx.id, ctx.params,
                                                               ctx.negotiated_version, ctx);
        } else if (m == "logging/setLevel") {
            ctx.response =
                co_await services_.log_levels.set_log_level(ctx.session, ctx.id, ctx.params, ctx);
        } else if (m.starts_with("tasks/")) {
            ctx.response =
                co_await services_.tasks.task_call(ctx.id, m, std::move(ctx.params), ctx);
        } else if (ctx.plan) {
            ctx.fetched = co_await services_.lists.fetch_lists(
                *protocol::list_kind_of(m), *ctx.plan, std::move(ctx.list_admitted), ctx);
        } else if (ctx.target) {
            auto& target = *ctx.target;
            auto& client = *ctx.view->clients[target.upstream];
            if ((m == "resources/subscribe" || m == "resources/unsubscribe") && client.modern()) {
                ctx.response = co_await services_.subscriptions.subscribe_at_modern_upstream(
                    m, ctx.id, target, ctx);
                co_return verdict::proceed;
            }
            auto reply = co_await services_.calls.call_routed(
                target.upstream, m, std::move(target.params), ctx, std::move(ctx.admitted));
            if (auto* f = std::get_if<upstream_failure>(&reply))
                ctx.response = refuse_upstream(ctx, ctx.id, *ctx.upstream, *f);
            else
                ctx.upstream_answer = std::move(std::get<upstream_message>(reply));
        }
        co_return verdict::proceed;
    }

    proxy_services services_;
};

} // namespace

std::unique_ptr<stage> make_proxy(proxy_services services) {
    return std::make_unique<proxy>(services);
}

} // namespace gate::transport::pipeline
