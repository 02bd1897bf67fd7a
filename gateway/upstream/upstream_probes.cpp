// Active health of an upstream's replicas (upstreams[].healthCheck.intervalMs): every
// interval each endpoint gets a full MCP connect probe (initialize, or server/discover at a
// 2026-07-28 upstream). The upstream actor keeps the interval and decides (a failed probe
// ejects the endpoint before client traffic reaches it, a successful one restores it at
// once, each transition logged once); this is the round it asks for, run on the io thread.
// The same handshake, sent with no credential, is how `GET /health` and `gate check` try an
// upstream that takes each caller's credential (handshake_without_credential).
#include "gateway/upstream/upstream_health.hpp"
#include "process/version.hpp"
#include "protocol/modern_request.hpp"
#include "transport/io/fan_out.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;

void upstream_health::start() {
    if (!state_.cfg.health_check_interval_ms || probing_ || state_.closed)
        return;
    probing_ = true;
    // Called on the actor's thread: the round itself runs on the io thread, and not at all
    // once this client is gone.
    guards_.board()->on_probe_round(this, [weak = state_.owner, this, ex = state_.ex] {
        asio::post(ex, [weak, this] {
            if (auto keep = weak.lock(); keep && !state_.closed)
                asio::co_spawn(state_.ex, probe_round(), asio::detached);
        });
    });
    if (auto actor = guards_.board()->actor()) // the first round now, not one interval from now
        caf::anon_send(actor, actors::health_tick{});
}

asio::awaitable<std::variant<gateway::http_answer, gateway::upstream_failure>>
upstream_health::probe_handshake(gateway::upstream_endpoint& ep, std::chrono::milliseconds budget) {
    auto deadline = clock::now() + budget;
    json::object params;
    json::object msg{{"jsonrpc", "2.0"}, {"id", state_.next_id++}};
    gateway::session_state state;
    if (state_.modern) {
        protocol::add_envelope(params, *sessions_.root()->capabilities,
                               json::object{{"name", "gate"}, {"version", process::gate_version}});
        msg["method"] = "server/discover";
        state.protocol_version = std::string(protocol::modern_protocol_version);
    } else {
        params = {{"protocolVersion", gateway::client_protocol_version},
                  {"capabilities", json::object{}},
                  {"clientInfo", {{"name", "gate-health"}, {"version", process::gate_version}}}};
        msg["method"] = "initialize";
    }
    msg["params"] = std::move(params);
    gateway::call_context ctx;
    ctx.timeout = budget;
    auto r = co_await exchange_.exchange(ep, gateway::outgoing_message::of(msg), state, ctx,
                                         deadline, nullptr);
    auto* answer = std::get_if<gateway::http_answer>(&r);
    auto* result =
        answer && answer->message ? answer->message->body().if_contains("result") : nullptr;
    if (answer && answer->status == 200 && result && result->is_object() &&
        !answer->session_id.empty()) { // the probe's own session is not kept open upstream
        gateway::session_state probed{answer->session_id, {}};
        if (auto* v = result->as_object().if_contains("protocolVersion"); v && v->is_string())
            probed.protocol_version = std::string(v->get_string());
        asio::co_spawn(state_.ex, exchange_.send_delete(ep, std::move(probed), nullptr),
                       asio::detached);
    }
    co_return r;
}

asio::awaitable<std::optional<std::string>>
upstream_health::probe_endpoint(gateway::upstream_endpoint& ep) {
    // A probe must end before the next one starts, and never outlast a request's own bound.
    auto budget = std::min(std::chrono::milliseconds(*state_.cfg.health_check_interval_ms),
                           std::chrono::milliseconds(state_.cfg.timeouts.request_ms));
    auto r = co_await probe_handshake(ep, budget);
    if (auto* f = std::get_if<gateway::upstream_failure>(&r)) {
        // An upstream that takes each caller's credential refuses gate's credential-less probe:
        // it answered, which is all a probe asks.
        if (state_.per_caller && (f->status == 401 || f->status == 403))
            co_return std::nullopt;
        co_return f->message;
    }
    auto& answer = std::get<gateway::http_answer>(r);
    auto* result = answer.message ? answer.message->body().if_contains("result") : nullptr;
    if (answer.status != 200 || !result || !result->is_object())
        co_return "probe answered HTTP " + std::to_string(answer.status) +
            (answer.message ? ": " + answer.message->raw() : std::string());
    co_return std::nullopt;
}

asio::awaitable<std::variant<bare_handshake, gateway::upstream_failure>>
upstream_health::handshake_without_credential(std::chrono::milliseconds budget,
                                              std::size_t endpoint) {
    auto r = co_await probe_handshake(
        exchange_.endpoint(endpoint < exchange_.endpoints().size() ? endpoint : 0), budget);
    if (auto* f = std::get_if<gateway::upstream_failure>(&r)) {
        if (!state_.per_caller || (f->status != 401 && f->status != 403))
            co_return std::move(*f);
        co_return bare_handshake{f->status, std::move(f->challenge), std::nullopt};
    }
    auto& answer = std::get<gateway::http_answer>(r);
    bare_handshake out{answer.status, std::move(answer.challenge), std::nullopt};
    auto* result = answer.message ? answer.message->body().if_contains("result") : nullptr;
    if (answer.status == 200 && result && result->is_object())
        out.result = std::move(result->as_object());
    co_return out;
}

asio::awaitable<void> upstream_health::probe_round() {
    auto keep = state_.hold();
    auto verdicts = co_await transport::fan_out<std::optional<std::string>>(
        exchange_.endpoints().size(),
        [this](std::size_t i) { return probe_endpoint(exchange_.endpoint(i)); });
    actors::probe_verdicts round;
    for (auto& v : verdicts)
        round.why.push_back(v ? std::move(*v) : std::optional<std::string>("probe failed"));
    if (auto actor = guards_.board()->actor())
        caf::anon_send(actor, std::move(round));
}

} // namespace gate::gateway

namespace gate::gateway {

void upstream_health::stop() {
    if (std::exchange(probing_, false))
        guards_.board()->drop_probe_round(this);
}

std::vector<upstream_health::endpoint_health> upstream_health::endpoints() const {
    std::vector<endpoint_health> out;
    auto view = guards_.board()->view();
    for (const auto& ep : exchange_.endpoints())
        out.push_back(
            {ep->url, ep->index < view->in_rotation.size() && view->in_rotation[ep->index]});
    return out;
}

} // namespace gate::gateway
