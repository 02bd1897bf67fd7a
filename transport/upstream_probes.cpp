// Active health of an upstream's replicas (upstreams[].healthCheck.intervalMs): every
// interval each endpoint gets a full MCP connect probe (initialize, or server/discover at a
// 2026-07-28 upstream). A failed probe ejects the endpoint before client traffic reaches it;
// a successful one restores it at once. Each transition is logged once.
#include "protocol/modern_request.hpp"
#include "transport/fan_out.hpp"
#include "transport/upstream_client.hpp"
#include "transport/upstream_client_parts.hpp"
#include "transport/version.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace gate::transport {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;

void upstream_client::start_health_checks() {
    if (!cfg_.health_check_interval_ms || health_timer_ || closed_)
        return;
    health_timer_ = std::make_shared<asio::steady_timer>(ex_);
    asio::co_spawn(ex_, health_loop(), asio::detached);
}

asio::awaitable<std::optional<std::string>> upstream_client::probe_endpoint(endpoint& ep) {
    // A probe must end before the next one starts, and never outlast a request's own bound.
    auto budget = std::min(std::chrono::milliseconds(*cfg_.health_check_interval_ms),
                           std::chrono::milliseconds(cfg_.timeouts.request_ms));
    auto deadline = clock::now() + budget;
    json::object params;
    json::object msg{{"jsonrpc", "2.0"}, {"id", next_id_++}};
    session_state state;
    if (modern_) {
        protocol::add_envelope(params, root_->capabilities,
                               json::object{{"name", "gate"}, {"version", gate_version}});
        msg["method"] = "server/discover";
        state.protocol_version = std::string(protocol::modern_protocol_version);
    } else {
        params = {{"protocolVersion", client_protocol_version},
                  {"capabilities", json::object{}},
                  {"clientInfo", {{"name", "gate-health"}, {"version", gate_version}}}};
        msg["method"] = "initialize";
    }
    msg["params"] = std::move(params);
    call_context ctx;
    ctx.timeout = budget;
    auto r = co_await exchange(ep, msg, state, ctx, deadline, nullptr);
    if (auto* f = std::get_if<upstream_failure>(&r))
        co_return f->message;
    auto& answer = std::get<http_answer>(r);
    auto* result = answer.message ? answer.message->if_contains("result") : nullptr;
    if (answer.status != 200 || !result || !result->is_object())
        co_return "probe answered HTTP " + std::to_string(answer.status) +
            (answer.message ? ": " + json::serialize(*answer.message) : std::string());
    if (!answer.session_id.empty()) { // the probe's own session is not kept open upstream
        session_state probed{answer.session_id, {}};
        if (auto* v = result->as_object().if_contains("protocolVersion"); v && v->is_string())
            probed.protocol_version = std::string(v->get_string());
        asio::co_spawn(ex_, send_delete(ep, std::move(probed)), asio::detached);
    }
    co_return std::nullopt;
}

asio::awaitable<void> upstream_client::health_loop() {
    auto self = shared_from_this(); // a retired client stops probing once closed
    auto timer = health_timer_;
    while (!closed_) {
        auto verdicts = co_await fan_out<std::optional<std::string>>(
            endpoints_.size(), [this](std::size_t i) { return probe_endpoint(*endpoints_[i]); });
        if (closed_)
            break;
        auto now = clock::now();
        for (std::size_t i = 0; i < verdicts.size(); ++i) {
            const auto& url = endpoints_[i]->url;
            std::optional<std::string> why =
                verdicts[i] ? *verdicts[i] : std::optional<std::string>("probe failed");
            if (why && rotation_.eject(i, now))
                spdlog::warn("upstream {} endpoint {} ejected by health probe: {}", cfg_.id, url,
                             *why);
            else if (!why && rotation_.restore(i))
                spdlog::info("upstream {} endpoint {} restored by health probe", cfg_.id, url);
        }
        timer->expires_after(std::chrono::milliseconds(*cfg_.health_check_interval_ms));
        boost::system::error_code ec;
        co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

} // namespace gate::transport
