// Stage 3: the global limit (server.rateLimit.requestsPerMinute), a sliding window over every
// JSON-RPC request on the MCP endpoint, kept by the limiter actor (actors/limiter). A request
// spends a slot of the batch the limiter granted this thread; with none left it asks for the
// next batch. Over the limit: 429 with Retry-After, audited once as an `http` rejection with
// outcome rate_limited (protocol/gateway_error). A limiter that cannot answer (between a
// crash and its respawn) lets the request through: gate's fault is not the client's.
#include "transport/bridge.hpp"
#include "transport/gateway_impl.hpp"
#include "transport/pipeline/gateway_stages.hpp"

#include <boost/json/serialize.hpp>

namespace gate::transport::pipeline {

namespace {

class global_limit final : public stage {
public:
    explicit global_limit(gateway::impl& g) : g_(g) {}
    transport::stage id() const override { return transport::stage::global_limit; }
    boost::asio::awaitable<verdict> run(request_context& ctx) override {
        std::optional<sliding_window::batch> batch;
        for (;;) {
            if (!g_.global_limit || g_.global_slots.take(std::chrono::steady_clock::now()))
                co_return verdict::proceed;
            auto limiter = g_.actors()->limiter;
            if (!limiter)
                co_return verdict::proceed;
            // One batch ask at a time; requests arriving meanwhile spend what it brings.
            if (co_await g_.global_flight.run_or_wait([&]() -> boost::asio::awaitable<void> {
                    batch = co_await ask<sliding_window::batch>(
                        limiter,
                        [](reply_to<sliding_window::batch> r) { return limit_ask{std::move(r)}; });
                }))
                break;
        }
        if (!batch)
            co_return verdict::proceed;
        if (batch->taken > 0) {
            g_.global_slots.grant(batch->taken, batch->until);
            co_return verdict::proceed;
        }
        auto seconds = whole_seconds(batch->wait);
        const auto& row = protocol::describe(protocol::gateway_error::global_rate_limited);
        auto why = "global rate limit of " + std::to_string(*g_.global_limit) +
                   " requests per minute reached; retry in " + std::to_string(seconds) + " s";
        ctx.method = "http";
        ctx.outcome = row.audit_outcome;
        ctx.rejection = std::string(row.metric_label);
        ctx.refusal_reply = http_reply::json(
            static_cast<boost::beast::http::status>(row.http_status),
            boost::json::serialize(boost::json::object{{"error", "rate limited: " + why}}));
        ctx.refusal_reply->headers.emplace_back("Retry-After", std::to_string(seconds));
        ctx.error = std::move(why);
        co_return verdict::answered;
    }

private:
    gateway::impl& g_;
};

} // namespace

std::unique_ptr<stage> make_global_limit(gateway::impl& g) {
    return std::make_unique<global_limit>(g);
}

} // namespace gate::transport::pipeline
