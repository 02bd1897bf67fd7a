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
#include "gateway/entry/gateway_impl.hpp"
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/gateway_stages.hpp"
#include "transport/bridge.hpp"

#include <boost/json/serialize.hpp>

namespace gate::transport::pipeline {

namespace {

using batch = sliding_window::batch;

// One limit's admission: a slot of `lease`, or a batch asked of the limiter (one ask at a
// time) for what the lease expects to spend (slot_demand). nullopt: admitted; otherwise the
// refusing batch, with its wait.
template <class Ask>
boost::asio::awaitable<std::optional<batch>> admit(slot_lease& lease, ask_flight& flight, Ask ask) {
    using clock = std::chrono::steady_clock;
    std::optional<batch> got;
    for (;;) {
        auto now = clock::now();
        if (lease.take(now))
            co_return std::nullopt;
        // Requests arriving while the ask is out spend what it brings.
        if (co_await flight.run_or_wait(
                [&, demand = lease.demand(now)]() mutable -> boost::asio::awaitable<void> {
                    got = co_await ask(demand);
                }))
            break;
    }
    if (!got)
        co_return std::nullopt; // the limiter did not answer: fail open
    if (got->taken > 0) {
        lease.grant(got->taken, got->until, clock::now());
        co_return std::nullopt;
    }
    co_return got;
}

// The batch of a shared window from the fleet's store, else (no store, or it did not answer)
// from this instance's limiter.
template <class Local>
boost::asio::awaitable<std::optional<batch>>
shared_or_local(gateway::impl& g, std::string scope, std::int64_t limit, const slot_demand& demand,
                Local local) {
    if (g.fleet)
        if (auto b = co_await g.fleet->take_window(scope, limit, demand))
            co_return b;
    co_return co_await local();
}

class global_limit final : public stage {
public:
    explicit global_limit(gateway::impl& g) : g_(g) {}
    transport::stage id() const override { return transport::stage::global_limit; }
    step run(request_context& ctx) override {
        if (!g_.actors()->limiter)
            return verdict::proceed;
        // Each configured window spends a slot of its lease; only one with none left waits
        // (for the next batch), and the windows after it with it.
        const auto& limits = ctx.view->snap->doc->server.rate_limit;
        auto now = std::chrono::steady_clock::now();
        if (limits && limits->requests_per_minute && !g_.global_slots.take(now))
            return wait_from(ctx, window::global);
        if (const auto* limit = tenant_limit(ctx);
            limit && !g_.tenant_leases.of(*ctx.tenant)->slots.take(now))
            return wait_from(ctx, window::tenant);
        if (limits && limits->per_principal_per_minute && ctx.caller &&
            !g_.principal_leases.of(principal_key(ctx.caller))->slots.take(now))
            return wait_from(ctx, window::principal);
        return verdict::proceed;
    }

private:
    enum class window { global, tenant, principal };

    // The caller's tenant's window, if it has one.
    static const config::rate_limit* tenant_limit(const request_context& ctx) {
        if (!ctx.tenant || !ctx.tenant_index)
            return nullptr;
        const auto& limit = ctx.view->snap->tenants->tenant(*ctx.tenant_index).rate_limit;
        return limit ? &*limit : nullptr;
    }

    // The windows from `first` on, each admitted through its lease or a batch asked for.
    boost::asio::awaitable<verdict> wait_from(request_context& ctx, window first) {
        auto limiter = g_.actors()->limiter;
        // The limits of the snapshot the request loaded (a reload changes them at once).
        const auto& limits = ctx.view->snap->doc->server.rate_limit;
        auto global_limit = limits ? limits->requests_per_minute : std::nullopt;
        auto principal_limit = limits ? limits->per_principal_per_minute : std::nullopt;
        if (global_limit && first == window::global) {
            auto per_minute = *global_limit;
            auto refused = co_await admit(g_.global_slots, g_.global_flight, [&](auto& demand) {
                return shared_or_local(g_, "global", per_minute, demand, [&] {
                    return ask<batch>(limiter, [&](reply_to<batch> r) {
                        return limit_ask{per_minute, demand, std::move(r)};
                    });
                });
            });
            if (refused)
                co_return over_limit(ctx, *refused,
                                     "global rate limit of " + std::to_string(per_minute) +
                                         " requests per minute reached");
        }
        // One bucket shared by the tenant's principals.
        if (const auto* limit = first != window::principal ? tenant_limit(ctx) : nullptr) {
            auto lease = g_.tenant_leases.of(*ctx.tenant);
            auto per_minute = limit->requests_per_minute;
            auto refused = co_await admit(lease->slots, lease->flight, [&](auto& demand) {
                return shared_or_local(g_, "tenant:" + *ctx.tenant, per_minute, demand, [&] {
                    return ask<batch>(limiter, [&](reply_to<batch> r) {
                        return tenant_limit_ask{*ctx.tenant, per_minute, demand, std::move(r)};
                    });
                });
            });
            if (refused)
                co_return over_limit(ctx, *refused,
                                     "rate limit of " + std::to_string(per_minute) +
                                         " requests per minute for tenant " + *ctx.tenant +
                                         " reached");
        }
        if (principal_limit && ctx.caller) {
            auto key = principal_key(ctx.caller);
            auto per_minute = *principal_limit;
            auto lease = g_.principal_leases.of(key);
            auto refused = co_await admit(lease->slots, lease->flight, [&](auto& demand) {
                return shared_or_local(g_, "principal:" + key, per_minute, demand, [&] {
                    return ask<batch>(limiter, [&](reply_to<batch> r) {
                        return principal_limit_ask{key, per_minute, demand, std::move(r)};
                    });
                });
            });
            if (refused)
                co_return over_limit(ctx, *refused,
                                     "rate limit of " + std::to_string(per_minute) +
                                         " requests per minute for " + ctx.caller->subject +
                                         " reached");
        }
        co_return verdict::proceed;
    }

    verdict over_limit(request_context& ctx, const batch& b, std::string why) {
        auto seconds = whole_seconds(b.wait);
        why += "; retry in " + std::to_string(seconds) + " s";
        transport::refuse(ctx, gateway_error::global_rate_limited, {why});
        ctx.refusal_reply->headers.emplace_back("Retry-After", std::to_string(seconds));
        return verdict::answered;
    }

    gateway::impl& g_;
};

} // namespace

std::unique_ptr<stage> make_global_limit(gateway::impl& g) {
    return std::make_unique<global_limit>(g);
}

} // namespace gate::transport::pipeline
