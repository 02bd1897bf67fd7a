// The MCP endpoint: streamable HTTP (2025-11-25, 2025-06-18) on server.mcpPath.
#include "actors/bridge_messages.hpp"
#include "actors/router_messages.hpp"
#include "gateway/auth/token_authenticator.hpp"
#include "gateway/entry/gateway_impl.hpp"
#include "gateway/mcp/fan_out.hpp"
#include "gateway/operations/request_tracing.hpp"
#include "gateway/pipeline/answers.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/json_splice.hpp"
#include "protocol/list_kind.hpp"
#include "protocol/protocol_versions.hpp"
#include "protocol/trace_context.hpp"
#include "transport/bridge.hpp"
#include "transport/http/sse.hpp"
#include "transport/process/version.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
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

namespace {

std::optional<std::string> error_text(const json::object& response) {
    auto* err = response.if_contains("error");
    auto* o = err ? err->if_object() : nullptr;
    auto* m = o ? o->if_contains("message") : nullptr;
    if (m && m->is_string())
        return std::string(m->get_string());
    if (err)
        return json::serialize(*err);
    return std::nullopt;
}

// The text of a request's params, and the little that follows them in its body, found by
// its spelling: the guide they are written from (protocol/json_preserve). Empty when there is
// no such spelling.
std::string_view params_text(std::string_view body) {
    auto start = protocol::find_spelled_member(body, "params");
    return start ? body.substr(*start) : std::string_view();
}

} // namespace

static json::object with_id(json::object response, const json::value& id) {
    response["id"] = id;
    return response;
}

// What settles a passed-on answer's outcome, read without parsing its result: the id, and
// the error as the upstream wrote it. A result stands in empty: the client is sent the
// answer's own text (rec.verbatim), never this object.
static json::object outcome_view(const upstream_message& answer, const json::value& id) {
    json::object view{{"jsonrpc", "2.0"}, {"id", id}};
    if (auto error = answer.value_at({"error"}))
        view["error"] = std::move(*error);
    else if (answer.has("result"))
        view["result"] = json::object{};
    return view;
}

json::object pass_on(upstream_message answer, const json::value& id, request_context& rec,
                     answer_read read) {
    if (auto spliced = answer.text_with_id(protocol::id_text(id))) {
        rec.verbatim = std::move(*spliced);
        if (read == answer_read::client_answer && !rec.modern)
            return outcome_view(answer, id);
    }
    return with_id(answer.take_body(), id);
}

json::object list_response(std::optional<std::variant<list_answer, route_error>> answer,
                           const json::value& id, request_context& rec) {
    if (!answer)
        return refusal(rec, id, gateway_error::internal_error, {"router unavailable"});
    if (auto* err = std::get_if<route_error>(&*answer))
        return refusal_with(rec, id, err->error, err->message);
    auto& ok = std::get<list_answer>(*answer);
    rec.items_served = static_cast<std::int64_t>(ok.items_served);
    // The page's items go on the wire as the router serialized them once for every request
    // (rec.verbatim); the answer object only settles the outcome (and for a 2026-07-28
    // client, what egress adds to the result is added to both).
    auto result = ok.result_text();
    auto id_text = protocol::id_text(id);
    std::string wire;
    wire.reserve(result.size() + id_text.size() + 40);
    wire.append(R"({"jsonrpc":"2.0","id":)").append(id_text);
    wire.append(R"(,"result":)").append(result).append("}");
    rec.verbatim = std::move(wire);
    return protocol::make_result(id, json::object{});
}

protocol::gateway_error error_for(const upstream_failure& f) {
    using k = upstream_failure::kind;
    switch (f.what) {
    case k::rate_limited:
        return protocol::gateway_error::upstream_rate_limited;
    case k::circuit_open:
        return protocol::gateway_error::upstream_circuit_open;
    case k::connect_error:
        return protocol::gateway_error::upstream_unreachable;
    default:
        return protocol::gateway_error::upstream_failed;
    }
}

json::object refuse_upstream(request_context& rec, const json::value& id, std::string_view upstream,
                             const upstream_failure& f) {
    auto e = error_for(f);
    rec.outcome = protocol::describe(e).audit_outcome;
    rec.error = f.message;
    auto answer = error_object(e, id, {upstream, f.message}, era_of(rec));
    if (f.retry_after.count() > 0) {
        // The retry hint in a form a program can read, beside the one in the message.
        answer["error"].as_object()["data"] = {{"upstream", upstream},
                                               {"retryAfterMs", f.retry_after.count()}};
    }
    return answer;
}

void settle_outcome(request_context& rec, const json::object& response) {
    // What gate answered itself set its outcome from its row (gateway/pipeline/answers); an
    // answer left with none is an upstream's, passed on: an error there is the call's error.
    if (rec.outcome == protocol::outcome::ok && response.contains("error"))
        rec.outcome = protocol::outcome::error;
    if (!rec.error)
        rec.error = error_text(response);
}

asio::awaitable<std::optional<http_reply>>
gateway::impl::mcp_post(const http_request& req, beast::tcp_stream& stream, request_context& rec) {
    // Header values are read in place (views into `req`, which outlives this call).
    if (!header(req, "Content-Type").value_or("").starts_with("application/json")) {
        refuse(rec, gateway_error::unsupported_media_type);
        stages.conclude(rec);
        co_return answer_of(rec);
    }
    if (!accepts(header(req, "Accept").value_or(""), "application/json")) {
        refuse(rec, gateway_error::not_acceptable);
        stages.conclude(rec);
        co_return answer_of(rec);
    }
    boost::system::error_code jec;
    auto value = json::parse(req.body(), jec);
    if (!jec && parts.tap)
        hear(req, rec);
    if (jec) {
        rec.method = "http";
        refuse(rec, gateway_error::parse_error, {jec.message()});
        stages.conclude(rec);
        co_return answer_of(rec);
    }
    auto classified = protocol::classify(std::move(value));
    if (auto* bad = std::get_if<protocol::rpc_error>(&classified)) {
        rec.method = "http";
        rec.id = bad->id;
        refuse(rec, gateway_error::invalid_request, {bad->message});
        stages.conclude(rec);
        co_return answer_of(rec);
    }
    auto& msg = std::get<protocol::message>(classified);
    // Stage 2 ran for every message (respond); stage 3 for requests only: a notification or a
    // client's answer finishes work already admitted and is never refused by the limit.
    bool is_request = msg.kind == protocol::message_kind::request;
    rec.method = msg.kind == protocol::message_kind::response ? "response" : msg.method;
    rec.id = msg.id;
    if (is_request)
        rec.params_source = params_text(req.body());
    if (is_request) {
        auto limited = stages.run(rec, stage::global_limit, stage::global_limit);
        if ((limited.ready() ? limited.value() : co_await limited.take()) ==
            pipeline::verdict::answered)
            co_return answer_of(rec);
    }
    start_trace(rec, header(req, "traceparent").value_or(""), rec.view->snap->doc->tracing);
    if (is_modern_request(req, msg))
        co_return co_await mcp_stateless(req, stream, std::move(msg), rec);
    auto session = header_value(req, "Mcp-Session-Id");
    bool is_initialize = msg.kind == protocol::message_kind::request && msg.method == "initialize";
    // While this message is being answered its session is in use: neither expired nor evicted
    // to make room for another (gateway/mcp/session_shares).
    session_call in_use;

    if (!is_initialize) {
        // Refusals of a readable message are audited under its method, requests and
        // notifications alike: every terminal answer leaves exactly one event.
        auto refused = [&](gateway_error e, std::initializer_list<std::string_view> args = {}) {
            rec.method = msg.method.empty() ? "http" : msg.method;
            refuse(rec, e, args);
            stages.conclude(rec);
            return answer_of(rec);
        };
        if (session.empty())
            co_return refused(gateway_error::session_required);
        auto known = known_session_now(session, rec.caller);
        if (!known)
            known = co_await known_session(session, rec.caller, rec.peer);
        if (!*known || !sessions.touch(session, clock::now()))
            co_return refused(gateway_error::session_unknown);
        in_use = sessions.call_on(session);
        auto header_version = header_value(req, "MCP-Protocol-Version");
        if (!header_version.empty() && !supported_protocol_version(header_version))
            co_return refused(gateway_error::unsupported_version, {header_version});
    }
    if (msg.kind != protocol::message_kind::request) {
        // Notifications and the client's answers to upstream requests: bridged to the
        // upstream they concern. The answer is terminal like any other and audited once.
        rec.method = msg.kind == protocol::message_kind::response ? "response" : msg.method;
        auto reply = co_await from_client(session, msg, rec, req.body());
        stages.conclude(rec);
        co_return reply;
    }

    rec.method = msg.method;
    rec.session = is_initialize ? std::string() : session;
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

http_reply answer_of(request_context& rec) {
    if (rec.refusal_reply)
        return std::move(*rec.refusal_reply);
    auto reply = rec.verbatim.empty()
                     ? http_reply::json(http::status::ok, json::serialize(*rec.response))
                     : http_reply::json(http::status::ok, std::move(rec.verbatim));
    for (auto& h : rec.reply_headers)
        reply.headers.push_back(std::move(h));
    return reply;
}

asio::awaitable<json::object> gateway::impl::initialize(const json::value& id,
                                                        const json::object& params,
                                                        std::string& version,
                                                        request_context& rec) {
    std::string requested;
    if (auto* v = params.if_contains("protocolVersion"); v && v->is_string())
        requested = std::string(v->get_string());
    version = negotiate_protocol_version(requested);
    json::object result;
    if (rec.view->snap->codec.passthrough()) {
        // Passthrough presents the one upstream as it is: its capabilities, info, instructions.
        rec.upstream = rec.view->snap->upstream(0).id;
        rec.upstream_calls = 1;
        auto ctx = traced_call(rec);
        json::object capabilities;
        if (rec.view->clients[0]->per_caller()) {
            // Asked with the caller's credential, on its principal's bridge, declaring what
            // this client declares.
            bind_caller(ctx, rec, 0);
            if (auto* c = params.if_contains("capabilities"); c && c->is_object())
                capabilities = c->as_object();
            ctx.client_capabilities = &capabilities;
        }
        auto r = co_await rec.view->clients[0]->initialize_result(ctx);
        if (auto* f = std::get_if<upstream_failure>(&r)) {
            if (f->answer) {
                // The upstream refused the handshake itself: its error goes back verbatim.
                co_return pass_on(std::move(*f->answer), id, rec);
            }
            co_return refuse_upstream(rec, id, rec.view->snap->upstream(0).id, *f);
        }
        result = std::move(std::get<json::object>(r));
    } else {
        result["capabilities"] = {{"tools", {{"listChanged", true}}},
                                  {"prompts", {{"listChanged", true}}},
                                  {"resources", {{"listChanged", true}, {"subscribe", true}}},
                                  {"completions", json::object{}},
                                  {"logging", json::object{}},
                                  {"tasks",
                                   {{"list", json::object{}},
                                    {"cancel", json::object{}},
                                    {"requests", {{"tools", {{"call", json::object{}}}}}}}}};
        result["serverInfo"] = {{"name", "gate"}, {"version", gate_version}};
    }
    result["protocolVersion"] = version;
    co_return protocol::make_result(id, std::move(result));
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
    if (g->admit_server_request(*rec->view, upstream, rec->caller, m.body(), bridge))
        rec->server_message(upstream, std::move(m));
}

void gateway::impl::bridged_call::sent(std::int64_t upstream_id) {
    if (tells_keeper)
        g->call_sent(*this, upstream_id);
}

asio::awaitable<std::optional<protocol::sourced_object>>
gateway::impl::bridged_call::ask_client(protocol::sourced_object request) {
    if (!g->admit_server_request(*rec->view, upstream, rec->caller, request.value, std::nullopt))
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
        tell_keeper(bridge_used{ctx.bridge, rec.view->clients[upstream]->config().id});
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
    call_over(call); // only a call told as sent is over for the keeper
    double seconds = std::chrono::duration<double>(clock::now() - start).count();
    std::string_view outcome = "ok";
    if (auto* f = std::get_if<upstream_failure>(&reply))
        outcome = protocol::describe(error_for(*f)).metric_label;
    stats.upstream(rec.view->clients[upstream]->config().id, outcome, seconds);
    close_upstream_span(rec, span, outcome);
    co_return reply;
}

asio::awaitable<std::vector<fetched_list>>
gateway::impl::fetch_planned(protocol::list_kind kind, const list_plan& plan,
                             std::vector<std::shared_ptr<upstream_client::guard_ticket>> tickets,
                             request_context& rec) {
    auto traits = protocol::traits(kind);
    auto outcomes = co_await fan_out<fetched_list>(
        plan.fetch.size(), [&, this](std::size_t i) -> asio::awaitable<fetched_list> {
            auto upstream = plan.fetch[i];
            // Admitted by stage 6 (a refused upstream has no ticket and is left out), or, for
            // gate's own fetches, by the client itself.
            if (!tickets.empty() && !tickets[i])
                co_return fetched_list{upstream, std::nullopt};
            auto start = clock::now();
            ++rec.upstream_calls;
            auto& client = rec.view->clients[upstream];
            // Per-caller: fetched on the caller's bridged session with its credential (and
            // never cached: actors/federation.cpp).
            bridged_call call;
            auto ctx =
                client->per_caller() ? bridged_context(rec, upstream, call) : traced_call(rec);
            call.tells_keeper = false;
            ctx.profile = plan.profile; // on the root session of the client's profile
            auto span = open_upstream_span(rec, client->config().id);
            if (!span.traceparent.empty())
                ctx.traceparent = std::move(span.traceparent);
            std::vector<std::string> written; // each item as the upstream wrote it
            auto r = tickets.empty()
                         ? co_await client->fetch_list(traits.method, traits.key, ctx, &written)
                         : co_await client->fetch_list(traits.method, traits.key, ctx,
                                                       std::move(*tickets[i]), &written);
            double seconds = std::chrono::duration<double>(clock::now() - start).count();
            auto& cfg = client->config();
            if (auto* f = std::get_if<upstream_failure>(&r)) {
                auto outcome = protocol::describe(error_for(*f)).metric_label;
                stats.upstream(cfg.id, outcome, seconds);
                close_upstream_span(rec, span, outcome);
                spdlog::warn("upstream {} left out of {}: {}", cfg.id, traits.method, f->message);
                co_return fetched_list{upstream, std::nullopt};
            }
            stats.upstream(cfg.id, "ok", seconds);
            close_upstream_span(rec, span, "ok");
            auto& items = std::get<json::array>(r);
            if (fleet)
                share_list(kind, plan.profile, *client, items, written);
            co_return fetched_list{upstream, std::move(items), std::move(written)};
        });
    std::vector<fetched_list> fetched;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
        fetched.push_back(outcomes[i] ? std::move(*outcomes[i])
                                      : fetched_list{plan.fetch[i], std::nullopt});
    co_return fetched;
}

asio::awaitable<json::object>
gateway::impl::complete_planned(protocol::list_kind kind, const list_plan& plan,
                                std::vector<fetched_list> fetched, const std::string& session,
                                const json::value& id, const json::object& params,
                                request_context& rec) {
    fetched.insert(fetched.end(), plan.from_fleet.begin(), plan.from_fleet.end());
    bool all_failed = !fetched.empty() && fetched.size() == rec.view->snap->size();
    for (auto& f : fetched)
        all_failed = all_failed && !f.items;
    if (all_failed) {
        co_return refusal(rec, id, gateway_error::all_upstreams_down);
    }
    std::optional<std::string> cursor;
    if (auto* c = params.if_contains("cursor"); c && c->is_string())
        cursor = std::string(c->get_string());
    else if (c && !c->is_null())
        co_return refusal(rec, id, gateway_error::invalid_cursor, {"not a string"});
    auto caller = cursor_owner_key(rec);
    auto who = plan.snap->policy ? rec.caller : nullptr;
    using answer_t = std::variant<list_answer, route_error>;
    auto answer = co_await ask<answer_t>(actors()->router_for(kind), [&](reply_to<answer_t> r) {
        return complete_list{plan.snap, kind,         plan.profile,   std::move(fetched), cursor,
                             caller,    std::move(r), std::move(who), rec.tenant_index};
    });
    co_return list_response(std::move(answer), id, rec);
}

asio::awaitable<std::optional<list_plan>> gateway::impl::plan_of(protocol::list_kind kind,
                                                                 request_context& rec) {
    // On the snapshot this request loaded, whatever reload came since (the router keeps it).
    auto plan = co_await ask<list_plan>(actors()->router_for(kind), [&](reply_to<list_plan> r) {
        return plan_list{rec.view->snap, kind, profile_of(rec), std::move(r)};
    });
    if (plan && fleet && !plan->fetch.empty())
        co_await fill_from_fleet(kind, *plan, rec);
    co_return plan;
}

asio::awaitable<json::object> gateway::impl::federated_list(protocol::list_kind kind,
                                                            const std::string& session,
                                                            const json::value& id,
                                                            const json::object& params,
                                                            request_context& rec) {
    auto plan = co_await plan_of(kind, rec);
    if (!plan)
        co_return refusal(rec, id, gateway_error::internal_error, {"router unavailable"});
    auto fetched = co_await fetch_planned(kind, *plan, {}, rec);
    co_return co_await complete_planned(kind, *plan, std::move(fetched), session, id, params, rec);
}

namespace {

std::variant<route, json::object> settle_route(std::variant<route, route_error> outcome,
                                               const json::value& id, request_context& rec) {
    if (auto* err = std::get_if<route_error>(&outcome)) {
        if (!err->name.empty())
            rec.name = err->name;
        return refusal_with(rec, id, err->error, err->message);
    }
    return std::move(std::get<route>(outcome));
}

} // namespace

std::optional<std::variant<route, json::object>>
gateway::impl::route_by_name(const std::string& method, const json::value& id, json::object& params,
                             request_context& rec) {
    // Names resolve against the immutable snapshot on this thread; only resource ownership,
    // which the router learns from lists, needs the actor.
    auto named = resolve_by_name(*rec.view->snap, method, params);
    if (!named)
        return std::nullopt;
    return settle_route(std::move(*named), id, rec);
}

asio::awaitable<std::variant<route, json::object>>
gateway::impl::route_named(const std::string& method, const json::value& id, json::object params,
                           request_context& rec) {
    if (auto by_name = route_by_name(method, id, params, rec))
        co_return std::move(*by_name);
    std::optional<routed> r;
    for (int attempt = 0;; ++attempt) {
        r = co_await ask<routed>(actors()->resource_router(), [&](reply_to<routed> reply) {
            return resolve_call{rec.view->snap, method, params, std::move(reply)};
        });
        if (!r)
            co_return refusal(rec, id, gateway_error::internal_error, {"router unavailable"});
        auto* err = std::get_if<route_error>(&r->outcome);
        if (!err || !err->needs_resource_lists || attempt > 0)
            break;
        // The owner of a URI is learnt from the lists: fetch them once, then route again.
        // As gate's own lists (every profile's URIs), with the caller's credential where an
        // upstream takes it.
        request_context side;
        side.view = rec.view;
        side.profile = protocol::full_profile;
        side.caller = rec.caller;
        side.authorization = rec.authorization;
        side.session = rec.session;
        side.modern = rec.modern;
        side.modern_capabilities = rec.modern_capabilities;
        co_await federated_list(protocol::list_kind::resources, "", nullptr, {}, side);
        co_await federated_list(protocol::list_kind::resource_templates, "", nullptr, {}, side);
        rec.upstream_calls += side.upstream_calls;
    }
    co_return settle_route(std::move(r->outcome), id, rec);
}

asio::awaitable<std::optional<http_reply>> gateway::impl::mcp_get(beast::tcp_stream& stream,
                                                                  const http_request& req,
                                                                  const caller_ref& caller,
                                                                  const asio::ip::address& peer) {
    auto session = header_value(req, "Mcp-Session-Id");
    std::optional<gateway_error> refused;
    if (!accepts(header_value(req, "Accept"), "text/event-stream"))
        refused = gateway_error::stream_not_acceptable;
    else if (session.empty())
        refused = gateway_error::stream_session_required;
    auto wake = std::make_shared<asio::steady_timer>(stream.get_executor(),
                                                     asio::steady_timer::time_point::max());
    if (!refused && !co_await known_session(session, caller, peer))
        refused = gateway_error::stream_session_unknown;
    if (!refused) {
        switch (sessions.attach_stream(session, wake)) {
        case session_table::attach_result::attached:
            break;
        case session_table::attach_result::unknown_session:
            refused = gateway_error::stream_session_unknown;
            break;
        case session_table::attach_result::too_many_streams:
            // Each open stream holds a connection and a coroutine: one session cannot take
            // the gateway's capacity.
            refused = gateway_error::too_many_streams;
            break;
        }
    }
    if (refused)
        co_return error_reply(
            {*refused, protocol::gateway_error_text(
                           *refused, {std::to_string(session_table::max_streams_per_session)})});
    boost::system::error_code ec;
    // The stream stays open for server-initiated messages; comments keep intermediaries from
    // timing it out. DELETE or shutdown wakes it to close.
    http::response<http::empty_body> res{http::status::ok, req.version()};
    res.set(http::field::content_type, "text/event-stream");
    res.set(http::field::cache_control, "no-cache");
    res.chunked(true);
    http::response_serializer<http::empty_body> sr{res};
    stream.expires_never();
    co_await http::async_write_header(stream, sr, asio::redirect_error(asio::use_awaitable, ec));
    // A listening client is connected: its bridged sessions are not idle while it listens.
    tell_keeper(bridge_listening{session, true});
    std::uint64_t event_id = 0;
    while (!ec && sessions.contains(session) && !server.stopping()) {
        auto pending = sessions.take_outbox(session);
        if (pending.empty()) {
            wake->expires_after(std::chrono::seconds(15));
            boost::system::error_code wait_ec;
            co_await wake->async_wait(asio::redirect_error(asio::use_awaitable, wait_ec));
            if (!sessions.contains(session) || server.stopping())
                break;
            pending = sessions.take_outbox(session);
        }
        std::string frame;
        for (const auto& m : pending)
            frame += format_sse(m, std::to_string(++event_id));
        if (frame.empty())
            frame = ": keep-alive\n\n";
        // A client that stops reading must not pin the stream (and its session) forever.
        stream.expires_after(std::chrono::seconds(30));
        co_await asio::async_write(stream, http::make_chunk(asio::buffer(frame)),
                                   asio::redirect_error(asio::use_awaitable, ec));
    }
    stream.expires_after(std::chrono::seconds(5));
    if (!ec)
        co_await asio::async_write(stream, http::make_chunk_last(),
                                   asio::redirect_error(asio::use_awaitable, ec));
    tell_keeper(bridge_listening{session, false});
    // A listening client was connected until now: its session's idle time counts from here.
    sessions.touch(session, clock::now());
    co_return std::nullopt;
}

asio::awaitable<http_reply> gateway::impl::mcp_delete(const http_request& req,
                                                      const caller_ref& caller,
                                                      const asio::ip::address& peer) {
    auto session = header_value(req, "Mcp-Session-Id");
    if (session.empty())
        co_return error_reply(
            {gateway_error::stream_session_required,
             protocol::gateway_error_text(gateway_error::stream_session_required)});
    if (!co_await known_session(session, caller, peer) || !sessions.close(session))
        co_return error_reply(
            {gateway_error::stream_session_unknown,
             protocol::gateway_error_text(gateway_error::stream_session_unknown)});
    end_fleet_session(session);
    session_ended(session);
    co_return http_reply::empty(http::status::ok);
}

} // namespace gate::transport
