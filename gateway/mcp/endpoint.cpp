// The MCP endpoint: streamable HTTP (2025-11-25, 2025-06-18) on server.mcpPath.
#include "actors/bridging/bridge_messages.hpp"
#include "actors/federation/router_messages.hpp"
#include "gateway/auth/token_authenticator.hpp"
#include "gateway/entry/gateway_impl.hpp"
#include "gateway/mcp/fan_out.hpp"
#include "gateway/operations/request_tracing.hpp"
#include "gateway/pipeline/answers.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/list_kind.hpp"
#include "protocol/trace_context.hpp"
#include "transport/bridge.hpp"
#include "transport/http/sse.hpp"
#include "transport/process/version.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

namespace gate::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
namespace ec = protocol::error_code;
using clock = std::chrono::steady_clock;

asio::awaitable<std::optional<http_reply>>
gateway::impl::mcp_post(beast::tcp_stream& stream, request_context& rec, pipeline::arrival& a) {
    // The entry read the message, set its method and id, admitted a request past the limit,
    // started its trace and, within a session, checked the session and holds it in use
    // (a.in_use) until this returns.
    const auto& req = a.req;
    auto& msg = *a.msg;
    if (a.modern)
        co_return co_await mcp_stateless(req, stream, std::move(msg), rec);
    if (msg.kind != protocol::message_kind::request) {
        // Notifications and the client's answers to upstream requests: bridged to the
        // upstream they concern. The answer is terminal like any other and audited once; it is
        // made here, after the entry, so it leaves by the exit here.
        auto reply = co_await from_clients.from_client(a.session, msg, rec, req.body());
        stages.conclude(rec);
        co_return reply;
    }
    bool is_initialize = msg.method == "initialize";
    rec.session = a.session; // empty for initialize, which opens one
    rec.client_id = protocol::id_text(msg.id);
    if (!is_initialize && !protocol::list_kind_of(msg.method) && msg.method != "ping" &&
        msg.method != "logging/setLevel") {
        // A named call (task methods included): it runs on the client's bridged session, and
        // what the upstream sends while it runs reaches the client before the answer.
        co_return co_await streamed_call(stream, req, std::move(msg), rec);
    }
    // Stages 4-9.
    rec.params = msg.take_params();
    if (auto routed = stages.run(rec, stage::route); !routed.ready())
        co_await routed.take();
    co_return answer_of(rec);
}

call_context gateway::impl::bridged_context(request_context& rec, std::size_t upstream,
                                            bridged_call& call) {
    auto ctx = traced_call(rec);
    const auto& client = *rec.view->clients[upstream];
    if (!rec.server_message && !client.per_caller())
        return ctx; // not a client's call: the root session
    // A named call of a downstream session: on that client's bridged session, with the
    // upstream's messages for it passed on, and its upstream id known for cancellation.
    ctx.bridge = rec.session;
    if (client.per_caller())
        bind_caller(ctx, rec, upstream);
    // Only a new bridged session needs them: no copy under the table's lock on every call.
    if (rec.modern || !client.has_bridge(ctx.bridge)) {
        call.capabilities =
            rec.modern ? rec.modern_capabilities : sessions.capabilities(rec.session);
        ctx.client_capabilities = &call.capabilities;
    }
    if (!rec.server_message)
        return ctx;
    call.g = this;
    call.rec = &rec;
    call.upstream = upstream;
    call.bridge = ctx.bridge;
    call.asks_input = rec.push_to_client && !rec.modern;
    call.tells_keeper = actors()->bridges && !rec.session.empty();
    ctx.observer = &call;
    return ctx;
}

void gateway::impl::bridged_call::message(const std::string&, upstream_message m) {
    if (g->upstream_news.admit_server_request(*rec->view, upstream, rec->caller, m.body(), bridge))
        rec->server_message(upstream, std::move(m));
}

void gateway::impl::bridged_call::sent(std::int64_t upstream_id) {
    if (tells_keeper)
        g->keeper.call_sent(open, rec->session, rec->client_id,
                            rec->view->clients[upstream]->config().id, upstream_id);
}

asio::awaitable<std::optional<protocol::sourced_object>>
gateway::impl::bridged_call::ask_client(protocol::sourced_object request) {
    if (!g->upstream_news.admit_server_request(*rec->view, upstream, rec->caller, request.value,
                                               std::nullopt))
        co_return std::nullopt; // the call fails: its input was refused
    co_return co_await g->ask_client_input(*rec, std::move(request));
}

protocol::client_profile gateway::impl::profile_of(request_context& rec) {
    if (!rec.profile)
        rec.profile = protocol::profile_of(rec.modern ? rec.modern_capabilities
                                                      : sessions.capabilities(rec.session));
    return *rec.profile;
}

std::shared_ptr<const caller_credential> gateway::impl::caller_of(request_context& rec) {
    if (!rec.caller_token && rec.caller && rec.authorization)
        if (auto token = bearer_of(*rec.authorization))
            rec.caller_token = std::make_shared<const caller_credential>(
                caller_credential{std::string(*token), rec.caller->issuer, rec.caller->subject});
    return rec.caller_token;
}

void gateway::impl::bind_caller(call_context& ctx, request_context& rec, std::size_t upstream) {
    ctx.caller = caller_of(rec);
    if (!ctx.caller || !ctx.bridge.empty())
        return; // anonymous (never, with auth required); or the session's own bridge
    // Keyed so that no downstream session id (random hex) can be mistaken for it.
    ctx.bridge = "principal " + ctx.caller->issuer + '\n' + ctx.caller->subject;
    if (actors()->bridges) // idle ones are retired like any bridge
        keeper.tell(bridge_used{ctx.bridge, rec.view->clients[upstream]->config().id});
}

asio::awaitable<upstream_reply>
gateway::impl::call_upstream(std::size_t upstream, std::string_view method, json::object params,
                             request_context& rec, bool client_call,
                             std::shared_ptr<upstream_client::guard_ticket> admitted) {
    auto start = clock::now();
    ++rec.upstream_calls;
    bridged_call call;
    auto ctx = bridged_context(rec, upstream, call);
    if (!client_call)
        call.tells_keeper = false;
    else // the client's params, to be written as it wrote them
        ctx.params_source = rec.params_source;
    auto& client = rec.view->clients[upstream];
    auto span = open_upstream_span(rec, client->config().id);
    if (!span.traceparent.empty())
        ctx.traceparent = std::move(span.traceparent);
    // Admitted by stage 6 (its ticket), or by the client itself (gate's own calls: probes).
    auto reply =
        admitted ? co_await client->request(method, std::move(params), ctx, std::move(*admitted))
                 : co_await client->request(method, std::move(params), ctx);
    keeper.call_over(call.open); // only a call told as sent is over for the keeper
    double seconds = std::chrono::duration<double>(clock::now() - start).count();
    std::string_view outcome = "ok";
    if (auto* f = std::get_if<upstream_failure>(&reply))
        outcome = protocol::describe(error_for(*f)).metric_label;
    stats.upstream(rec.view->clients[upstream]->config().id, outcome, seconds);
    close_upstream_span(rec, span, outcome);
    co_return reply;
}

} // namespace gate::transport
