// Stage 3: the rate limits, kept by the limiter actor (actors/guards/limiter): the global window
// over every JSON-RPC request on the MCP endpoint (server.rateLimit.requestsPerMinute), then the
// caller's tenant's shared window (tenants[].rateLimit), then the authenticated caller's own
// (server.rateLimit.perPrincipalPerMinute; anonymous callers have none).
// A request spends a slot of the batch the limiter granted this thread; with none left it
// asks for the next batch. Over a limit: 429 with Retry-After, audited once as an `http`
// rejection with outcome rate_limited (protocol/gateway_error). A limiter that cannot answer
// (between a crash and its respawn) lets the request through: gate's fault is not the
// client's. With a shared store (server.redisUrl), each batch is the fleet's, taken from the
// store in one round trip; a store that does not answer leaves the limiter's own windows.
#include "gateway/pipeline/s3_global_limit.hpp"

#include "gateway/pipeline/answers.hpp"

#include <chrono>

namespace gate::gateway::pipeline {

namespace {

using batch = actors::sliding_window::batch;

class global_limit final : public stage {
public:
    global_limit(global_limit_services& limiter, limit_leases& leases)
        : limiter_(limiter), leases_(leases) {}
    gateway::stage id() const override { return gateway::stage::global_limit; }
    step run(request_context& ctx) override {
        if (!limiter_.limiting())
            return verdict::proceed;
        // Each configured window spends a slot of its lease; only one with none left waits
        // (for the next batch), and the windows after it with it.
        const auto& limits = ctx.view->snap->doc->server.rate_limit;
        auto now = std::chrono::steady_clock::now();
        if (limits && limits->requests_per_minute && !leases_.global.take(now))
            return wait_from(ctx, limit_window::global);
        if (const auto* limit = tenant_limit(ctx);
            limit && !leases_.tenants.of(*ctx.who.tenant)->slots.take(now))
            return wait_from(ctx, limit_window::tenant);
        if (limits && limits->per_principal_per_minute && ctx.who.caller &&
            !leases_.principals.of(principal_key(ctx.who.caller))->slots.take(now))
            return wait_from(ctx, limit_window::principal);
        return verdict::proceed;
    }

private:
    // The caller's tenant's window, if it has one.
    static const config::rate_limit* tenant_limit(const request_context& ctx) {
        if (!ctx.who.tenant || !ctx.who.tenant_index)
            return nullptr;
        const auto& limit = ctx.view->snap->tenants->tenant(*ctx.who.tenant_index).rate_limit;
        return limit ? &*limit : nullptr;
    }

    // One window admitted through its lease, or a batch asked for: the fleet's, else (no
    // store, or it did not answer) this instance's. The refusing batch, if refused.
    boost::asio::awaitable<std::optional<batch>>
    admit_window(actors::slot_lease& slots, transport::ask_flight& flight, limit_window window,
                 const std::string& key, std::int64_t per_minute) {
        std::string scope = window == limit_window::global   ? std::string("global")
                            : window == limit_window::tenant ? "tenant:" + key
                                                             : "principal:" + key;
        co_return co_await admit_through(
            slots, flight,
            [&](const actors::slot_demand& demand) -> boost::asio::awaitable<std::optional<batch>> {
                if (auto b = co_await limiter_.take_shared(scope, per_minute, demand))
                    co_return b;
                co_return co_await limiter_.take_local(window, key, per_minute, demand);
            });
    }

    // The windows from `first` on, each admitted through its lease or a batch asked for.
    boost::asio::awaitable<verdict> wait_from(request_context& ctx, limit_window first) {
        // The limits of the snapshot the request loaded (a reload changes them at once).
        const auto& limits = ctx.view->snap->doc->server.rate_limit;
        auto global_limit = limits ? limits->requests_per_minute : std::nullopt;
        auto principal_limit = limits ? limits->per_principal_per_minute : std::nullopt;
        if (global_limit && first == limit_window::global) {
            auto per_minute = *global_limit;
            if (auto refused = co_await admit_window(leases_.global, leases_.global_flight,
                                                     limit_window::global, {}, per_minute))
                co_return over_limit(ctx, *refused,
                                     "global rate limit of " + std::to_string(per_minute) +
                                         " requests per minute reached");
        }
        // One bucket shared by the tenant's principals.
        if (const auto* limit = first != limit_window::principal ? tenant_limit(ctx) : nullptr) {
            auto lease = leases_.tenants.of(*ctx.who.tenant);
            auto per_minute = limit->requests_per_minute;
            if (auto refused = co_await admit_window(
                    lease->slots, lease->flight, limit_window::tenant, *ctx.who.tenant, per_minute))
                co_return over_limit(ctx, *refused,
                                     "rate limit of " + std::to_string(per_minute) +
                                         " requests per minute for tenant " + *ctx.who.tenant +
                                         " reached");
        }
        if (principal_limit && ctx.who.caller) {
            auto key = principal_key(ctx.who.caller);
            auto per_minute = *principal_limit;
            auto lease = leases_.principals.of(key);
            if (auto refused = co_await admit_window(lease->slots, lease->flight,
                                                     limit_window::principal, key, per_minute))
                co_return over_limit(ctx, *refused,
                                     "rate limit of " + std::to_string(per_minute) +
                                         " requests per minute for " + ctx.who.caller->subject +
                                         " reached");
        }
        co_return verdict::proceed;
    }

    verdict over_limit(request_context& ctx, const batch& b, std::string why) {
        auto seconds = actors::whole_seconds(b.wait);
        why += "; retry in " + std::to_string(seconds) + " s";
        gateway::refuse(ctx, gateway_error::global_rate_limited, {why});
        ctx.answer.refusal_reply->headers.emplace_back("Retry-After", std::to_string(seconds));
        return verdict::answered;
    }

    global_limit_services& limiter_;
    limit_leases& leases_;
};

} // namespace

std::unique_ptr<stage> make_global_limit(global_limit_services& limiter, limit_leases& leases) {
    return std::make_unique<global_limit>(limiter, leases);
}

} // namespace gate::gateway::pipeline
