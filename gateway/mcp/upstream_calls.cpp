// A call's observer lives in the caller's frame for the call's length: the common call (the
// answer alone) makes no hook, queue or timer of its own.
#include "gateway/mcp/upstream_calls.hpp"

#include "gateway/auth/token_authenticator.hpp"
#include "gateway/mcp/initialize.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "gateway/pipeline/request_tracing.hpp"

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;

call_context upstream_calls::bridged_context(request_context& rec, std::size_t upstream,
                                             bridged_call& call) {
    auto ctx = traced_call(rec);
    auto& client = *rec.view->client_at(upstream);
    if (!rec.sinks.server_message && !client.per_caller())
        return ctx; // not a client's call: the root session
    // A named call of a downstream session: on that client's bridged session, with the
    // upstream's messages for it passed on, and its upstream id known for cancellation.
    ctx.bridge = rec.client.session;
    if (client.per_caller())
        bind_caller(ctx, rec, upstream);
    // Only a new bridged session needs them: no copy under the table's lock on every call.
    if (rec.client.modern || !client.sessions().has_bridge(ctx.bridge)) {
        call.capabilities = rec.client.modern ? rec.client.modern_capabilities
                                              : clients_.capabilities(rec.client.session);
        ctx.client_capabilities = &call.capabilities;
        ctx.session_client =
            !rec.client.modern && !rec.client.session.empty() && ctx.bridge == rec.client.session;
    }
    if (!rec.sinks.server_message)
        return ctx;
    call.calls = this;
    call.rec = &rec;
    call.upstream = upstream;
    call.bridge = ctx.bridge;
    call.asks_input = rec.sinks.push_to_client && !rec.client.modern;
    call.tells_keeper = bridges_.keeps_bridges() && !rec.client.session.empty();
    ctx.observer = &call;
    return ctx;
}

void upstream_calls::bridged_call::message(const std::string&, upstream_message m) {
    auto& s = calls->judge_;
    if (!s.admit_server_request(*rec->view, upstream, rec->who.caller, m.body(), bridge))
        return;
    if (!s.hook_asks(*rec->view, m.body(), false))
        return rec->sinks.server_message(upstream, bridge, std::move(m));
    if (!alive)
        alive = std::make_shared<bool>(true);
    // The call may end while the hook decides: delivered only while it runs.
    s.judge_then_deliver(rec->view, upstream, rec->who.caller, std::move(m), bridge,
                         [this, running = alive](upstream_message& allowed) {
                             if (!*running || !rec->sinks.server_message)
                                 return false;
                             rec->sinks.server_message(upstream, bridge, std::move(allowed));
                             return true;
                         });
}

void upstream_calls::bridged_call::sent(std::int64_t upstream_id) {
    if (tells_keeper)
        calls->bridges_.call_sent(open, rec->client.session, rec->client.client_id,
                                  rec->view->snap->upstream(upstream).id, upstream_id);
}

asio::awaitable<std::optional<protocol::sourced_object>>
upstream_calls::bridged_call::ask_client(protocol::sourced_object request) {
    auto& s = calls->judge_;
    if (!s.admit_server_request(*rec->view, upstream, rec->who.caller, request.value, std::nullopt))
        co_return std::nullopt; // the call fails: its input was refused
    if (s.hook_asks(*rec->view, request.value, true) &&
        !co_await s.hook_admits(rec->view, upstream, rec->who.caller, request.value, std::nullopt))
        co_return std::nullopt;
    co_return co_await calls->input_.ask_client_input(*rec, std::move(request));
}

protocol::client_profile upstream_calls::profile_of(request_context& rec) {
    if (!rec.client.profile)
        rec.client.profile =
            protocol::profile_of(rec.client.modern ? rec.client.modern_capabilities
                                                   : clients_.capabilities(rec.client.session));
    return *rec.client.profile;
}

namespace {

// The verified caller as a per-caller upstream needs it; made once per request.
std::shared_ptr<const caller_credential> caller_of(request_context& rec) {
    if (!rec.who.caller_token && rec.who.caller && rec.admission.authorization)
        if (auto token = bearer_of(*rec.admission.authorization))
            rec.who.caller_token = std::make_shared<const caller_credential>(caller_credential{
                std::string(*token), rec.who.caller->issuer, rec.who.caller->subject});
    return rec.who.caller_token;
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

void upstream_calls::begin(running_call& r, std::size_t upstream, request_context& rec,
                           bool client_call) {
    r.start = clock::now();
    ++rec.audit.upstream_calls;
    r.ctx = bridged_context(rec, upstream, r.call);
    if (!client_call)
        r.call.tells_keeper = false;
    else { // the client's params, to be written as it wrote them, and its Mcp-Param-* headers
        r.ctx.params_source = rec.message.params_source;
        r.ctx.client_param_headers = rec.client.param_headers;
        r.ctx.cancel = rec.sinks.cancel;
    }
    r.client = rec.view->client_at(upstream).get();
    r.calls = this;
    r.rec = &rec;
    r.span = open_upstream_span(rec, r.client->config().id);
    if (!r.span.traceparent.empty())
        r.ctx.traceparent = std::move(r.span.traceparent);
}

void upstream_calls::end(running_call& r, const upstream_reply* reply) {
    if (!std::exchange(r.calls, nullptr))
        return;
    bridges_.call_over(r.call.open); // only a call told as sent is over for the keeper
    double seconds = std::chrono::duration<double>(clock::now() - r.start).count();
    const auto* f = reply ? std::get_if<upstream_failure>(reply) : nullptr;
    std::string_view outcome = "ok";
    if (!reply)
        outcome = protocol::describe(protocol::gateway_error::upstream_failed).metric_label;
    else if (f)
        outcome = protocol::describe(error_for(*f)).metric_label;
    if (!f || !f->login_first())
        counts_.count(r.client->config().id, outcome, seconds);
    close_upstream_span(*r.rec, r.span, outcome);
}

asio::awaitable<upstream_reply> upstream_calls::send(running_call& r, std::string_view method,
                                                     json::object params, ticket admitted) {
    // Admitted by stage 6 (its ticket), or by the client itself (gate's own calls: probes).
    return admitted
               ? r.client->sender().request(method, std::move(params), r.ctx, std::move(*admitted))
               : r.client->sender().request(method, std::move(params), r.ctx);
}

asio::awaitable<upstream_reply> upstream_calls::call(std::size_t upstream, std::string_view method,
                                                     json::object params, request_context& rec,
                                                     bool client_call, ticket admitted) {
    running_call r;
    begin(r, upstream, rec, client_call);
    auto reply = co_await send(r, method, std::move(params), std::move(admitted));
    end(r, &reply);
    co_return reply;
}

asio::awaitable<pipeline::verdict> upstream_calls::call_routed(request_context& rec) {
    auto& target = *rec.routed.target;
    running_call r;
    begin(r, target.upstream, rec, true);
    // A user-account upstream may send the user to a login and take the call again after it:
    // a call whose caller holds no token there yet keeps its params for that.
    bool keep = r.client->per_caller() && r.client->config().auth.strategy == "user-account" &&
                !logins_.holds_token(rec, target.upstream);
    auto params = keep ? target.params : json::object();
    auto reply =
        co_await send(r, rec.method, std::move(target.params), std::move(rec.guards.admitted));
    if (auto* f = std::get_if<upstream_failure>(&reply); f && f->needs_login) {
        auto login = co_await logins_.send_to_login(rec, target.upstream, *f, keep);
        if (login == account_logins::outcome::answered) {
            end(r, &reply);
            co_return pipeline::verdict::proceed;
        }
        if (login == account_logins::outcome::send_again)
            reply = co_await send(r, rec.method, std::move(params), nullptr);
    }
    end(r, &reply);
    keep_reply(rec, std::move(reply));
    co_return pipeline::verdict::proceed;
}

boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
upstream_calls::fetch_tasks(std::size_t upstream, request_context& rec) {
    bridged_call call;
    auto on_bridge = bridged_context(rec, upstream, call);
    call.tells_keeper = false; // a list is not a call the client can cancel
    co_return co_await rec.view->client_at(upstream)->lists().fetch_list("tasks/list", "tasks",
                                                                         on_bridge);
}

boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
upstream_calls::fetch(protocol::list_kind kind, protocol::client_profile profile,
                      std::size_t upstream, std::string traceparent, ticket admitted,
                      request_context& rec, std::vector<std::string>& written) {
    const auto& client = rec.view->client_at(upstream);
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
        co_return co_await client->lists().fetch_list(traits.method, traits.key, on, &written);
    co_return co_await client->lists().fetch_list(traits.method, traits.key, on,
                                                  std::move(*admitted), &written);
}

boost::asio::awaitable<boost::json::object>
upstream_calls::initialize(const boost::json::value& id, const boost::json::object& params,
                           std::string& version, request_context& rec) {
    return initialize_answer(*this, id, params, version, rec);
}

} // namespace gate::gateway
