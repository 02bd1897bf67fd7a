// Stage 3: the global limit (server.rateLimit.requestsPerMinute), a sliding window over every
// JSON-RPC request on the MCP endpoint. Over it: 429 with Retry-After, audited once as an
// `http` rejection with outcome rate_limited (protocol/gateway_error).
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
        if (!g_.global_window)
            co_return verdict::proceed;
        auto wait = g_.global_window->take(std::chrono::steady_clock::now());
        if (!wait)
            co_return verdict::proceed;
        auto seconds = whole_seconds(*wait);
        const auto& row = protocol::describe(protocol::gateway_error::global_rate_limited);
        auto why = "global rate limit of " + std::to_string(g_.global_window->limit()) +
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
