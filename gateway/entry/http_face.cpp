// The gateway's HTTP face (gateway/entry/http_face.hpp): admission, the server's refusals and
// the route table's endpoints.
#include "gateway/entry/http_face.hpp"

#include "gateway/accounts/user_accounts.hpp"
#include "gateway/auth/token_endpoint.hpp"
#include "gateway/entry/fault_hooks.hpp"
#include "gateway/entry/gate_routes.hpp"
#include "gateway/entry/introspection.hpp"
#include "gateway/entry/thread_affinity.hpp"
#include "gateway/operations/console_assets.hpp"
#include "gateway/operations/traffic_tap.hpp"
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "gateway/pipeline/s1_host_origin.hpp"
#include "protocol/gateway_error.hpp"
#include "protocol/json_text.hpp"

#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse_query.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using clock = std::chrono::steady_clock;

void http_face::reject_http(protocol::gateway_error e, std::string text, clock::time_point start) {
    request_context refused;
    refused.admission.start = start;
    refuse(refused, error_answer{e, std::move(text)});
    p_.stages.conclude(refused);
}

request_context http_face::mcp_context(const transport::http_request& req, time_point start) const {
    request_context rec;
    rec.view = p_.live.current_view();
    rec.admission.start = start;
    rec.passage.trace.record(stage::host_origin);
    if (auto a = header(req, "Authorization"))
        rec.admission.authorization = std::string(*a);
    std::string_view target(req.target().data(), req.target().size());
    if (auto q = target.find('?'); q != std::string_view::npos) {
        // A NUL-terminated copy: Boost.URL 1.81's parse_query reads its input to a NUL
        // (ASan: strlen inside it), and the target in Beast's buffer has none after it.
        std::string query(target.substr(q + 1));
        auto params = boost::urls::parse_query(query);
        if (params)
            for (const auto& p : *params)
                rec.admission.query_token = rec.admission.query_token || p.key == "access_token";
    }
    return rec;
}

std::optional<transport::http_reply> http_face::admit(const transport::http_request& req,
                                                      time_point start) {
    // Stage 1, before anything else: the Host/Origin allowlist, on every endpoint.
    auto refused =
        pipeline::check_host_origin(p_.live->guard, header(req, "Host"), header(req, "Origin"));
    if (!refused)
        return std::nullopt;
    reject_http(*refused, protocol::gateway_error_text(*refused), start);
    return pipeline::forbidden_reply(*refused);
}

namespace {

gateway_error row_of(transport::server_refusal why) {
    switch (why) {
    case transport::server_refusal::connections_full:
        return gateway_error::connections_full;
    case transport::server_refusal::header_too_large:
        return gateway_error::header_too_large;
    case transport::server_refusal::header_timeout:
        return gateway_error::header_timeout;
    case transport::server_refusal::duplicate_host:
        return gateway_error::duplicate_host;
    case transport::server_refusal::body_too_large:
        break;
    }
    return gateway_error::body_too_large;
}

} // namespace

transport::http_reply http_face::refused(transport::server_refusal why, std::size_t limit,
                                         time_point start) {
    auto e = row_of(why);
    auto text = protocol::gateway_error_text(e, {std::to_string(limit)});
    auto reply = error_reply({e, text});
    if (why == transport::server_refusal::connections_full)
        reply.headers.emplace_back("Retry-After", "1");
    if (why == transport::server_refusal::connections_full ||
        why == transport::server_refusal::header_timeout)
        // No request was read: counted, not audited, so a flood of connections cannot
        // become a flood of audit events.
        p_.stats.rejection(protocol::describe(e).metric_label);
    else
        reject_http(e, std::move(text), start); // a request's refusal, audited once
    return reply;
}

namespace {

// RFC 9728 resource metadata (with auth.mode "required").
transport::http_reply resource_metadata_reply(const http_face_parts& p) {
    json::array servers;
    for (const auto& i : p.auth.issuers)
        if (!i.exchange_only) // spec: never advertised as an authorization server
            servers.emplace_back(i.issuer);
    if (p.tokens)
        servers.emplace_back(p.tokens->issuer());
    json::object body{{"resource", p.auth.resource.value_or("")},
                      {"authorization_servers", std::move(servers)},
                      {"bearer_methods_supported", json::array{"header"}}};
    if (p.tokens)
        body["mcp_extensions_supported"] =
            json::array{"io.modelcontextprotocol/enterprise-managed-authorization"};
    auto reply = transport::http_reply::json(http::status::ok, json::serialize(body));
    reply.headers.emplace_back("Cache-Control", "max-age=300");
    return reply;
}

// Which of the route table's switches are on: the running document's, and this program's.
route_switches switches_of(const http_face_parts& p) {
    const auto& server = p.live->snap->doc->server;
    return {.introspection = server.introspection_enabled,
            .console = server.console_enabled,
            .own_tokens = p.tokens != nullptr,
            .inbound_auth = p.inbound_auth,
            .fault_hooks = p.fault_hooks,
            .user_accounts = p.accounts.in_use()};
}

// Another method on a path the table owns: 405 with Allow, worded as that endpoint refuses.
transport::http_reply method_refused(other_methods how, const std::string& allow) {
    auto e = how == other_methods::get_only ? gateway_error::get_only
                                            : gateway_error::method_not_allowed;
    auto reply = error_reply({e, protocol::gateway_error_text(e)});
    reply.headers.emplace_back("Allow", allow);
    return reply;
}

transport::http_reply not_found() {
    return error_reply(
        {gateway_error::not_found, protocol::gateway_error_text(gateway_error::not_found)});
}

asio::awaitable<transport::http_reply> metrics_reply(const http_face_parts& p) {
    auto counts = counts_of(p.live, p.sessions, p.budgets);
    if (p.others && *p.others)
        counts.add(co_await (*p.others)());
    std::vector<metrics::guard_sample> guards;
    // Each entry's guard board is the process's: read without a client of it.
    const auto& view = *p.live;
    for (std::size_t i = 0; i < view.size(); ++i) {
        auto& sample = guards.emplace_back();
        const auto& cfg = view.config(i);
        auto board = view.board(i)->view();
        sample.upstream = cfg.id;
        sample.breaker_state = static_cast<int>(board->shown(std::chrono::steady_clock::now()));
        for (std::size_t e = 0; e < cfg.urls.size(); ++e)
            sample.endpoints.emplace_back(cfg.urls[e],
                                          e < board->in_rotation.size() && board->in_rotation[e]);
    }
    auto& stats = p.stats.at_scrape();
    stats.upstream_guards(guards);
    stats.session_counts(counts.sessions, counts.bridged);
    stats.outbox_dropped(static_cast<std::int64_t>(counts.dropped));
    if (const auto& t = p.audit_tally)
        stats.audit_counts(t->dropped.load(), t->delivered.load(), t->failures.load());
    if (const auto& t = p.span_tally)
        stats.span_counts(t->dropped.load(), t->delivered.load(), t->failures.load());
    if (p.tap)
        stats.recording_counts(p.tap->tally().delivered.load(), p.tap->tally().dropped.load());
    if (p.supervision)
        stats.supervision_counts(*p.supervision);
    std::vector<budget_sample> budgets;
    for (auto& b : counts.budgets)
        budgets.push_back({std::move(b.key), b.allowance, b.taken, b.spent, b.exhausted});
    stats.budget_standings(budgets);
    auto reply = transport::http_reply::text(http::status::ok, p.stats.serialize());
    reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
    co_return reply;
}

// POST /oauth/token (auth.ema).
asio::awaitable<transport::http_reply> redeem_token(const http_face_parts& p,
                                                    transport::http_request& req,
                                                    std::chrono::steady_clock::time_point start) {
    // It is no MCP request and enters no stage; its answer leaves by the exit.
    request_context rec;
    rec.admission.start = start;
    rec.passage.trace.record(stage::host_origin);
    auto reply = co_await p.tokens->redeem(req, rec);
    p.stages.conclude(rec);
    co_return reply;
}

asio::awaitable<transport::http_reply> health_reply(const http_face_parts& p) {
    auto report = co_await p.health.report();
    co_return transport::http_reply::json(report.any_up ? http::status::ok
                                                        : http::status::service_unavailable,
                                          protocol::json_text(report.body));
}

// Users' account pages (gateway/accounts/user_accounts.hpp). An io thread that does not keep the
// accounts answers one only while it stops (a connection no longer moves to the keeper then):
// 503, to try again (docs/io-threads.md).
asio::awaitable<transport::http_reply> account_page(accounts::user_accounts& accounts, endpoint e,
                                                    endpoint_call& c) {
    if (e != endpoint::account_client_metadata && !accounts.keeps()) {
        auto reply = accounts::connections_refusal(
            http::status::service_unavailable,
            "gate is stopping: this thread does not keep users' accounts; try again");
        reply.headers.emplace_back("Retry-After", "1");
        co_return reply;
    }
    switch (e) {
    case endpoint::account_connect:
        co_return co_await accounts.connect(c.req);
    case endpoint::account_callback:
        co_return co_await accounts.callback(c.req);
    case endpoint::account_client_metadata:
        co_return accounts.client_metadata();
    case endpoint::account_connections:
        co_return accounts.connections_of(c.rec->who.caller);
    case endpoint::account_disconnect:
        co_return co_await accounts.disconnect(
            c.rec->who.caller, c.path.substr(std::string_view("/api/connections/").size()));
    case endpoint::account_listing:
        co_return accounts.everyones_connections(c.rec->who.caller, c.req);
    default:
        co_return co_await accounts.revoke(c.rec->who.caller, c.req);
    }
}

// The endpoints a row of the route table names (gate_routes.hpp) but the MCP endpoint's POST and
// GET, for a request that entered the chain by the row's door (`c.rec`, `c.arrival`) or needs
// none.
asio::awaitable<std::optional<transport::http_reply>> answer_other(const http_face_parts& p,
                                                                   endpoint e, endpoint_call& c) {
    switch (e) {
    case endpoint::mcp_message:
    case endpoint::mcp_stream:
        break; // answer's
    case endpoint::mcp_close:
        co_return co_await p.streams.remove(c.req, c.rec->who.caller, c.rec->admission.peer);
    case endpoint::federation_view:
        co_return co_await p.views.federation(*c.rec);
    case endpoint::explain_view:
        co_return p.views.explain(*c.rec, c.req);
    case endpoint::traffic_view:
        co_return co_await p.views.traffic(*c.rec);
    case endpoint::catalog_view:
        co_return co_await p.views.catalog(*c.rec);
    case endpoint::token_redemption:
        co_return co_await redeem_token(p, c.req, c.start);
    case endpoint::token_keys:
        co_return p.tokens->jwks();
    case endpoint::token_issuer_metadata:
        co_return p.tokens->metadata();
    case endpoint::resource_metadata:
        co_return resource_metadata_reply(p);
    case endpoint::auth_hint:
        co_return auth_hint_reply(*p.live->snap->doc, p.tokens);
    case endpoint::console_root:
    case endpoint::console_asset:
        co_return console_page(c.path).value_or(not_found());
    case endpoint::health:
        co_return co_await health_reply(p);
    case endpoint::metrics:
        co_return co_await metrics_reply(p);
    case endpoint::icon:
        co_return co_await p.icons.serve(p.live->snap, c.path, c.req.method() == http::verb::get);
    case endpoint::account_connect:
    case endpoint::account_callback:
    case endpoint::account_client_metadata:
    case endpoint::account_connections:
    case endpoint::account_disconnect:
    case endpoint::account_listing:
    case endpoint::account_revocation:
        co_return co_await account_page(p.accounts, e, c);
    case endpoint::fault_hook:
        co_return run_fault_hook(*p.live, p.supervisor, c.req.method(), c.path)
            .value_or(not_found());
    }
    co_return not_found();
}

// The endpoint a row names. The MCP endpoint's POST and GET are the call path: their own
// coroutines are handed back as they are, with no frame of this function's around them.
asio::awaitable<std::optional<transport::http_reply>> answer(const http_face_parts& p, endpoint e,
                                                             endpoint_call& c) {
    if (e == endpoint::mcp_message)
        return p.endpoint.post(c.stream, *c.rec, *c.arrival);
    if (e == endpoint::mcp_stream)
        return p.streams.get(c.stream, c.req, c.rec->who.caller, c.rec->admission.peer);
    return answer_other(p, e, c);
}

} // namespace

asio::awaitable<std::optional<transport::http_reply>>
http_face::respond(transport::http_request& req, beast::tcp_stream& stream,
                   const asio::ip::address& peer, time_point start) {
    auto path = transport::path_of(req.target());
    const auto& mcp_path = p_.live->snap->doc->server.mcp_path; // a reload may move it
    auto route = find_route(std::span<const gate_route>(gate_routes), path, req.method(), mcp_path,
                            switches_of(p_));
    if (route.refused)
        co_return method_refused(*route.refused, route.allow);
    if (!route.row)
        co_return not_found();
    endpoint_call call{req, stream, path, start};
    if (!route.row->door)
        co_return co_await answer(p_, route.row->handler, call);
    // The one door in: every request the stages see enters the chain here, once; what the
    // entry answered has left by the exit. The endpoint continues: a message from stage 4 (or
    // with its own answer), the others with what is not an MCP request.
    auto rec = mcp_context(req, start);
    rec.admission.peer = peer;
    pipeline::arrival a{*route.row->door, req};
    auto entered = p_.stages.enter(rec, a);
    if ((entered.ready() ? entered.value() : co_await entered.take()) ==
        pipeline::verdict::answered)
        co_return answer_of(rec);
    call.rec = &rec;
    call.arrival = &a;
    co_return co_await answer(p_, route.row->handler, call);
}

std::optional<std::size_t> http_face::owner(const transport::http_request& req, bool body_read) {
    if (p_.io_threads <= 1)
        return std::nullopt;
    return owning_thread(req, body_read, p_.live->snap->doc->server.mcp_path, p_.io_threads);
}

void thread_counts::add(thread_counts other) {
    sessions += other.sessions;
    bridged += other.bridged;
    dropped += other.dropped;
    for (auto& theirs : other.budgets) {
        auto ours = std::find_if(budgets.begin(), budgets.end(),
                                 [&](const auto& b) { return b.key == theirs.key; });
        if (ours == budgets.end()) {
            budgets.push_back(std::move(theirs));
            continue;
        }
        ours->allowance = std::max(ours->allowance, theirs.allowance);
        ours->taken += theirs.taken;
        ours->spent += theirs.spent;
        ours->exhausted = ours->exhausted || theirs.exhausted;
    }
}

thread_counts counts_of(const live_federation& live, const session_table& sessions,
                        const budget_charger& budgets) {
    thread_counts out{sessions.size(), 0, sessions.dropped_messages(),
                      budgets.standings(std::chrono::system_clock::now())};
    live->for_each_made([&](upstream_client& c) { out.bridged += c.sessions().bridges(); });
    return out;
}

} // namespace gate::gateway
