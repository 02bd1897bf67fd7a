// A call's observer lives in the caller's frame for the call's length: the common call (the
// answer alone) makes no hook, queue or timer of its own.
#include "gateway/mcp/upstream_calls.hpp"

#include "gateway/auth/token_authenticator.hpp"
#include "gateway/mcp/initialize.hpp"
#include "gateway/operations/request_tracing.hpp"
#include "gateway/pipeline/client_answer.hpp"

namespace gate::transport {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;

call_context upstream_calls::bridged_context(request_context& rec, std::size_t upstream,
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
            rec.modern ? rec.modern_capabilities : clients_.capabilities(rec.session);
        ctx.client_capabilities = &call.capabilities;
        ctx.session_client = !rec.modern && !rec.session.empty() && ctx.bridge == rec.session;
    }
    if (!rec.server_message)
        return ctx;
    call.calls = this;
    call.rec = &rec;
    call.upstream = upstream;
    call.bridge = ctx.bridge;
    call.asks_input = rec.push_to_client && !rec.modern;
    call.tells_keeper = bridges_.keeps_bridges() && !rec.session.empty();
    ctx.observer = &call;
    return ctx;
}

void upstream_calls::bridged_call::message(const std::string&, upstream_message m) {
    auto& s = calls->judge_;
    if (!s.admit_server_request(*rec->view, upstream, rec->caller, m.body(), bridge))
        return;
    if (!s.hook_asks(*rec->view, m.body(), false))
        return rec->server_message(upstream, bridge, std::move(m));
    if (!alive)
        alive = std::make_shared<bool>(true);
    // The call may end while the hook decides: delivered only while it runs.
    s.judge_then_deliver(rec->view, upstream, rec->caller, std::move(m), bridge,
                         [this, running = alive](upstream_message& allowed) {
                             if (!*running || !rec->server_message)
                                 return false;
                             rec->server_message(upstream, bridge, std::move(allowed));
                             return true;
                         });
}

void upstream_calls::bridged_call::sent(std::int64_t upstream_id) {
    if (tells_keeper)
        calls->bridges_.call_sent(open, rec->session, rec->client_id,
                                  rec->view->snap->upstream(upstream).id, upstream_id);
}

asio::awaitable<std::optional<protocol::sourced_object>>
upstream_calls::bridged_call::ask_client(protocol::sourced_object request) {
    auto& s = calls->judge_;
    if (!s.admit_server_request(*rec->view, upstream, rec->caller, request.value, std::nullopt))
        co_return std::nullopt; // the call fails: its input was refused
    if (s.hook_asks(*rec->view, request.value, true) &&
        !co_await s.hook_admits(rec->view, upstream, rec->caller, request.value, std::nullopt))
        co_return std::nullopt;
    co_return co_await calls->input_.ask_client_input(*rec, std::move(request));
}

protocol::client_profile upstream_calls::profile_of(request_context& rec) {
    if (!rec.profile)
        rec.profile = protocol::profile_of(rec.modern ? rec.modern_capabilities
                                                      : clients_.capabilities(rec.session));
    return *rec.profile;
}

namespace {

// The verified caller as a per-caller upstream needs it; made once per request.
std::shared_ptr<const caller_credential> caller_of(request_context& rec) {
    if (!rec.caller_token && rec.caller && rec.authorization)
        if (auto token = bearer_of(*rec.authorization))
            rec.caller_token = std::make_shared<const caller_credential>(
                caller_credential{std::string(*token), rec.caller->issuer, rec.caller->subject});
    return rec.caller_token;
}

} // namespace

void upstream_calls::bind_caller(call_context& ctx, request_context& rec, std::size_t upstream) {
    ctx.caller = caller_of(rec);
    if (!ctx.caller || !ctx.bridge.empty())
        return; // anonymous (never, with auth required); or the session's own bridge
    // Keyed so that no downstream session id (random hex) can be mistaken for it.
    ctx.bridge = "principal " + ctx.caller->issuer + '\n' + ctx.caller->subject;
    if (bridges_.keeps_bridges()) // idle ones are retired like any bridge
        bridges_.used(ctx.bridge, rec.view->snap->upstream(upstream).id);
}

asio::awaitable<upstream_reply> upstream_calls::call(std::size_t upstream, std::string_view method,
                                                     json::object params, request_context& rec,
                                                     bool client_call, ticket admitted) {
    auto start = clock::now();
    ++rec.upstream_calls;
    bridged_call call;
    auto ctx = bridged_context(rec, upstream, call);
    if (!client_call)
        call.tells_keeper = false;
    else { // the client's params, to be written as it wrote them, and its Mcp-Param-* headers
        ctx.params_source = rec.params_source;
        ctx.client_param_headers = rec.param_headers;
        ctx.cancel = rec.cancel;
    }
    auto& client = rec.view->clients[upstream];
    auto span = open_upstream_span(rec, client->config().id);
    if (!span.traceparent.empty())
        ctx.traceparent = std::move(span.traceparent);
    // Admitted by stage 6 (its ticket), or by the client itself (gate's own calls: probes).
    auto reply =
        admitted ? co_await client->request(method, std::move(params), ctx, std::move(*admitted))
                 : co_await client->request(method, std::move(params), ctx);
    bridges_.call_over(call.open); // only a call told as sent is over for the keeper
    double seconds = std::chrono::duration<double>(clock::now() - start).count();
    std::string_view outcome = "ok";
    if (auto* f = std::get_if<upstream_failure>(&reply))
        outcome = protocol::describe(error_for(*f)).metric_label;
    counts_.count(client->config().id, outcome, seconds);
    close_upstream_span(rec, span, outcome);
    co_return reply;
}

boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
upstream_calls::fetch_tasks(std::size_t upstream, request_context& rec) {
    bridged_call call;
    auto on_bridge = bridged_context(rec, upstream, call);
    call.tells_keeper = false; // a list is not a call the client can cancel
    co_return co_await rec.view->clients[upstream]->fetch_list("tasks/list", "tasks", on_bridge);
}

boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
upstream_calls::fetch(protocol::list_kind kind, protocol::client_profile profile,
                      std::size_t upstream, std::string traceparent, ticket admitted,
                      request_context& rec, std::vector<std::string>& written) {
    auto& client = rec.view->clients[upstream];
    // Per-caller: fetched on the caller's bridged session with its credential (and never
    // cached: actors/federation/federation.cpp).
    bridged_call call;
    auto on = client->per_caller() ? bridged_context(rec, upstream, call) : traced_call(rec);
    call.tells_keeper = false;
    on.profile = profile; // on the root session of the client's profile
    if (!traceparent.empty())
        on.traceparent = std::move(traceparent);
    auto traits = protocol::traits(kind);
    if (!admitted)
        co_return co_await client->fetch_list(traits.method, traits.key, on, &written);
    co_return co_await client->fetch_list(traits.method, traits.key, on, std::move(*admitted),
                                          &written);
}

boost::asio::awaitable<boost::json::object>
upstream_calls::initialize(const boost::json::value& id, const boost::json::object& params,
                           std::string& version, request_context& rec) {
    return initialize_answer(*this, id, params, version, rec);
}

} // namespace gate::transport
