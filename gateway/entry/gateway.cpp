#include "actors/bridging/bridge_messages.hpp"
#include "actors/federation/router_messages.hpp"
#include "actors/sinks/audit.hpp"
#include "gateway/entry/entry_services.hpp"
#include "gateway/entry/gateway_impl.hpp"
#include "gateway/operations/fault_hooks.hpp"
#include "gateway/operations/introspection.hpp"
#include "gateway/operations/traffic_tap.hpp"
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/s1_host_origin.hpp"
#include "gateway/pipeline/s2_authenticate.hpp"
#include "gateway/pipeline/s3_global_limit.hpp"
#include "gateway/pipeline/s4_route.hpp"
#include "gateway/pipeline/s5_authorize.hpp"
#include "gateway/pipeline/s6_upstream_guards.hpp"
#include "gateway/pipeline/s7_proxy.hpp"
#include "gateway/pipeline/s8_egress.hpp"
#include "gateway/pipeline/s9_audit.hpp"
#include "protocol/gateway_error.hpp"
#include "protocol/json_text.hpp"
#include "transport/random_id.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse_query.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

namespace gate::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using clock = std::chrono::steady_clock;

namespace {

// A downstream session nobody used for this long, with no open stream, is forgotten so
// clients that never send DELETE cannot grow the gateway without bound.
constexpr auto downstream_session_idle = std::chrono::hours(1);
constexpr auto session_sweep_interval = std::chrono::minutes(1);

// The client's address (unspecified if the connection just closed).
asio::ip::address peer_of(const beast::tcp_stream& stream) {
    boost::system::error_code ec;
    return stream.socket().remote_endpoint(ec).address();
}

session_limits session_limits_of(const config::server& s) {
    return {static_cast<std::size_t>(s.sessions.max),
            static_cast<std::size_t>(s.sessions.per_principal)};
}

// Clients for a snapshot, reusing those of `previous` whose upstream entry is unchanged.
std::shared_ptr<const federation_view> make_view(asio::io_context& io,
                                                 std::shared_ptr<const snapshot> snap,
                                                 const federation_view* previous) {
    auto view = std::make_shared<federation_view>();
    view->snap = std::move(snap);
    for (const auto& u : view->snap->doc->upstreams) {
        std::shared_ptr<upstream_client> reused;
        if (previous)
            for (const auto& c : previous->clients)
                if (c->config() == u)
                    reused = c;
        view->clients.push_back(reused ? reused : upstream_client::make(io.get_executor(), u));
    }
    return view;
}

// The token endpoint of auth.ema, with the key from the environment (checked at start:
// missing_secrets).
std::unique_ptr<token_endpoint> make_token_endpoint(asio::io_context& io,
                                                    const config::auth& auth) {
    if (!auth.ema)
        return nullptr;
    const char* pem = std::getenv(auth.ema->signing_key_ref.c_str());
    auto signer = protocol::jose::es256_signer::from_pem(pem ? pem : "");
    if (auto* why = std::get_if<std::string>(&signer))
        throw std::runtime_error("auth.ema.signingKeyRef: " + *why);
    return std::make_unique<token_endpoint>(io.get_executor(), auth,
                                            std::move(std::get<0>(signer)));
}

std::optional<token_authenticator::own_issuer>
own_issuer_of(const std::unique_ptr<token_endpoint>& tokens) {
    if (!tokens)
        return std::nullopt;
    return token_authenticator::own_issuer{tokens->issuer(), tokens->public_key()};
}

} // namespace

gateway::impl::impl(asio::io_context& io_, gateway_parts parts_)
    : io(io_), parts(std::move(parts_)), doc(*parts.snap->doc),
      guard(doc.server.allowed_hosts, doc.server.allowed_hosts_any),
      live(make_view(io_, parts.snap, nullptr)),
      health(std::make_shared<health_checker>(live->clients, !doc.auth.required)),
      tokens(make_token_endpoint(io_, doc.auth)),
      authenticator(doc.auth.required ? std::make_unique<token_authenticator>(
                                            io_.get_executor(), doc.auth, own_issuer_of(tokens))
                                      : nullptr),
      resource_metadata(doc.auth.required ? resource_metadata_url(doc.auth.resource.value_or(""))
                                          : std::string()),
      server(io_, *this, static_cast<std::size_t>(doc.server.max_body_bytes), "gate"),
      stages({pipeline::make_host_origin(guard),
              pipeline::make_authenticate(authenticator ? &guard_services : nullptr,
                                          resource_metadata),
              pipeline::make_global_limit(guard_services, limit_leases),
              pipeline::make_route(call_services),
              pipeline::make_authorize(resource_metadata, &decisions),
              pipeline::make_upstream_guards({budgets, stats, guard_services, limit_leases.tools}),
              pipeline::make_proxy(call_services),
              pipeline::make_egress(call_services, &decisions)},
             pipeline::make_audit(guard_services, stats, &traffic), make_entry_steps(*this)) {
    sessions.set_limits(session_limits_of(doc.server));
    definitions->use(doc);
    icons.learn_through([this](std::shared_ptr<const snapshot> snap, std::size_t upstream) {
        return learn_icons(std::move(snap), upstream);
    });
    if (parts.shared_store) {
        fleet = std::make_shared<fleet_store>(io_.get_executor(), *parts.shared_store, stats);
        in_fleet.join(fleet, random_id().substr(0, 8) + "-", parts.fleet_cursor_key);
        definitions->share_through(fleet);
        if (tokens)
            tokens->share_through(fleet);
    }
}

gateway::gateway(asio::io_context& io, gateway_parts parts)
    : impl_(std::make_unique<impl>(io, std::move(parts))) {
    impl_->on_request = &on_request;
    for (const auto& c : impl_->live->clients)
        impl_->wire(c);
    // Each upstream's actor is the supervisor's to spawn and watch.
    if (impl_->parts.supervisor)
        caf::anon_send(impl_->parts.supervisor, adopt_upstreams{impl_->live->boards()});
}

std::vector<std::shared_ptr<guard_board>> federation_view::boards() const {
    std::vector<std::shared_ptr<guard_board>> out;
    for (const auto& c : clients)
        out.push_back(c->board());
    return out;
}

upstream_client* federation_view::client(const std::string& id) const {
    for (const auto& c : clients)
        if (c->config().id == id)
            return c.get();
    return nullptr;
}

void gateway::retire_bridges(std::vector<retired_bridge> gone) {
    auto view = impl_->live;
    for (const auto& b : gone)
        if (auto* c = view->client(b.upstream); !c || c->retire_bridge(b.session))
            impl_->server_requests.forget_bridge(b.session, b.upstream);
}

gateway::~gateway() = default;

std::uint16_t gateway::listen(const std::string& host, std::uint16_t port) {
    auto bound = impl_->server.listen(host, port);
    asio::co_spawn(impl_->io, impl_->sweep_sessions(), asio::detached);
    if (impl_->fleet)
        asio::co_spawn(impl_->io, impl_->in_fleet.follow(), asio::detached);
    impl_->warm_up(*impl_->live);
    return bound;
}

void gateway::feed_sinks() {
    impl_->sinks.feed();
}

void gateway::count_discovery(std::string_view outcome, std::size_t refused) {
    impl_->stats.discovery_sync(outcome, refused);
}

std::optional<std::string> gateway::reload(std::shared_ptr<const config::document> next,
                                           std::string_view source) {
    auto& i = *impl_;
    const auto& now = i.doc;
    if (!(next->server.budget == now.server.budget))
        return "server.budget cannot change without a restart (it is fixed at construction)";
    if (next->server.redis_url != now.server.redis_url)
        return "server.redisUrl cannot change without a restart (the fleet's shared store is "
               "joined at start)";
    if (!(next->auth == now.auth))
        return "the auth section cannot change without a restart";
    auto snap = make_snapshot(std::move(next), i.live->snap->version + 1);
    auto view = make_view(i.io, snap, i.live.get());
    std::size_t kept = 0;
    for (const auto& c : view->clients)
        for (const auto& old : i.live->clients)
            kept += c == old;
    for (const auto& old : i.live->clients)
        if (std::find(view->clients.begin(), view->clients.end(), old) == view->clients.end()) {
            // Retired: its calls in flight finish (bounded by its request timeout), then its
            // streams and bridged sessions end.
            old->retire(std::chrono::milliseconds(old->config().timeouts.request_ms));
            i.keeper.tell(bridge_upstream_gone{old->config().id});
            i.server_requests.forget_upstream(old->config().id);
        }
    i.definitions->use(*snap->doc); // before a new client lists its tools
    for (const auto& c : view->clients) {
        i.wire(c);
        c->judge_tools_again();
    }
    auto discovered = snap->doc->discovered_count();
    spdlog::info("{} applied: {} upstream{} ({} discovered); {} kept with live sessions, {} new "
                 "or changed, {} retired",
                 source, view->clients.size(), view->clients.size() == 1 ? "" : "s", discovered,
                 kept, view->clients.size() - kept, i.live->clients.size() - kept);
    i.live = view;
    // The rest of the server section applies to requests read from now on.
    i.guard = host_guard(snap->doc->server.allowed_hosts, snap->doc->server.allowed_hosts_any);
    i.server.set_max_body(static_cast<std::size_t>(snap->doc->server.max_body_bytes));
    i.sessions.set_limits(session_limits_of(snap->doc->server));
    // Slots granted under the old limits go: the new ones hold from the next request.
    i.limit_leases.revoke_all();
    i.health = std::make_shared<health_checker>(view->clients, !i.doc.auth.required);
    i.warm_up(*view);
    // The supervisor owns the snapshot and broadcasts it to the actors that route on it.
    if (i.parts.supervisor)
        caf::anon_send(i.parts.supervisor, reload_snapshot{snap, view->boards()});
    else
        for (const auto& router : i.actors()->routers)
            caf::anon_send(router, replace_snapshot{snap});
    for (auto method : {"notifications/tools/list_changed", "notifications/prompts/list_changed",
                        "notifications/resources/list_changed"})
        i.list_changes.announce(method);
    return std::nullopt;
}

void gateway::drain(std::chrono::steady_clock::duration bound, std::function<void()> then) {
    // Requests already being answered finish (bounded); open GET streams end as their
    // sessions close.
    stop();
    impl_->server.drain(bound, std::move(then));
}

void gateway::stop() {
    impl_->server.stop();
    asio::post(impl_->io, [i = impl_.get()] {
        i->listens.close_all();
        i->sessions.close_all();
        for (const auto& c : i->live->clients)
            c->close();
    });
}

void gateway::impl::warm_up(const federation_view& view) {
    // Each upstream's root session is opened now rather than by the first client request, so
    // an operator sees at start (and after a reload) which upstreams answer.
    for (const auto& client : view.clients) {
        if (client->per_caller()) {
            // No session of gate's own: the first caller opens one with its credential.
            spdlog::info("upstream {} takes each caller's credential ({}): its sessions open "
                         "with their first call",
                         client->config().id, client->config().auth.strategy);
            continue;
        }
        asio::co_spawn(
            io,
            [client]() -> asio::awaitable<void> {
                auto r = co_await client->initialize_result({});
                const auto& id = client->config().id;
                if (auto* f = std::get_if<upstream_failure>(&r)) {
                    spdlog::warn("upstream {} not reachable yet: {}", id, f->message);
                    co_return;
                }
                const auto& init = std::get<boost::json::object>(r);
                std::string name = "?", version = "?";
                if (auto* info = init.if_contains("serverInfo"); info && info->is_object()) {
                    if (auto* n = info->as_object().if_contains("name"); n && n->is_string())
                        name = n->as_string();
                    if (auto* v = info->as_object().if_contains("version"); v && v->is_string())
                        version = v->as_string();
                }
                spdlog::info("upstream {} ready: {} {}", id, name, version);
            },
            asio::detached);
    }
}

asio::awaitable<void> gateway::impl::sweep_sessions() {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    while (!server.stopping()) {
        timer.expires_after(session_sweep_interval);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        auto gone = sessions.expire_idle(clock::now(), downstream_session_idle);
        if (auto n = gone.size())
            spdlog::info("expired {} idle downstream session{}", n, n == 1 ? "" : "s");
        for (auto& id : gone)
            session_ended(std::move(id));
    }
}

void gateway::impl::reject_http(protocol::gateway_error e, std::string text,
                                clock::time_point start) {
    request_context refused;
    refused.start = start;
    refuse(refused, error_answer{e, std::move(text)});
    stages.conclude(refused);
}

request_context gateway::impl::mcp_context(const http_request& req, time_point start) const {
    request_context rec;
    rec.view = live;
    rec.start = start;
    rec.trace.record(stage::host_origin);
    if (auto a = header(req, "Authorization"))
        rec.authorization = std::string(*a);
    std::string_view target(req.target().data(), req.target().size());
    if (auto q = target.find('?'); q != std::string_view::npos) {
        // A NUL-terminated copy: Boost.URL 1.81's parse_query reads its input to a NUL
        // (ASan: strlen inside it), and the target in Beast's buffer has none after it.
        std::string query(target.substr(q + 1));
        auto params = boost::urls::parse_query(query);
        if (params)
            for (const auto& p : *params)
                rec.query_token = rec.query_token || p.key == "access_token";
    }
    return rec;
}

http_reply gateway::impl::protected_resource_metadata() const {
    json::array servers;
    for (const auto& i : doc.auth.issuers)
        if (!i.exchange_only) // spec: never advertised as an authorization server
            servers.emplace_back(i.issuer);
    if (tokens)
        servers.emplace_back(tokens->issuer());
    json::object body{{"resource", doc.auth.resource.value_or("")},
                      {"authorization_servers", std::move(servers)},
                      {"bearer_methods_supported", json::array{"header"}}};
    if (tokens)
        body["mcp_extensions_supported"] =
            json::array{"io.modelcontextprotocol/enterprise-managed-authorization"};
    auto reply = http_reply::json(http::status::ok, json::serialize(body));
    reply.headers.emplace_back("Cache-Control", "max-age=300");
    return reply;
}

std::optional<http_reply> gateway::impl::admit(const http_request& req, time_point start) {
    // Stage 1, before anything else: the Host/Origin allowlist, on every endpoint.
    auto refused = pipeline::check_host_origin(guard, header(req, "Host"), header(req, "Origin"));
    if (!refused)
        return std::nullopt;
    reject_http(*refused, protocol::gateway_error_text(*refused), start);
    return pipeline::forbidden_reply(*refused);
}

namespace {

gateway_error row_of(server_refusal why) {
    switch (why) {
    case server_refusal::connections_full:
        return gateway_error::connections_full;
    case server_refusal::header_too_large:
        return gateway_error::header_too_large;
    case server_refusal::header_timeout:
        return gateway_error::header_timeout;
    case server_refusal::duplicate_host:
        return gateway_error::duplicate_host;
    case server_refusal::body_too_large:
        break;
    }
    return gateway_error::body_too_large;
}

} // namespace

http_reply gateway::impl::refused(server_refusal why, std::size_t limit, time_point start) {
    auto e = row_of(why);
    auto text = protocol::gateway_error_text(e, {std::to_string(limit)});
    auto reply = error_reply({e, text});
    if (why == server_refusal::connections_full)
        reply.headers.emplace_back("Retry-After", "1");
    if (why == server_refusal::connections_full || why == server_refusal::header_timeout)
        // No request was read: counted, not audited, so a flood of connections cannot
        // become a flood of audit events.
        stats.rejection(protocol::describe(e).metric_label);
    else
        reject_http(e, std::move(text), start); // a request's refusal, audited once
    return reply;
}

namespace {

// The door of the chain a request enters by (chain::enter): the MCP endpoint's three verbs and
// the federation view; none for an endpoint the stages do not guard (public ones, gate's own
// token endpoint, health, metrics).
std::optional<pipeline::door> door_of(const config::server& server, std::string_view path,
                                      http::verb verb) {
    if (path == server.mcp_path) {
        switch (verb) {
        case http::verb::post:
            return pipeline::door::message;
        case http::verb::get:
            return pipeline::door::stream;
        case http::verb::delete_:
            return pipeline::door::close;
        default:
            return std::nullopt; // 405
        }
    }
    if (is_view_path(path) && server.introspection_enabled && verb == http::verb::get)
        return pipeline::door::view;
    return std::nullopt;
}

http_reply metrics_reply(gateway::impl& g) {
    std::size_t bridged = 0;
    std::vector<metrics::guard_sample> guards;
    for (const auto& c : g.live->clients) {
        bridged += c->bridges();
        auto& sample = guards.emplace_back();
        sample.upstream = c->config().id;
        sample.breaker_state = static_cast<int>(c->breaker_state());
        for (const auto& e : c->endpoints())
            sample.endpoints.emplace_back(e.url, e.in_rotation);
    }
    auto& stats = g.stats;
    const auto& parts = g.parts;
    stats.upstream_guards(guards);
    stats.session_counts(g.sessions.size(), bridged);
    stats.outbox_dropped(static_cast<std::int64_t>(g.sessions.dropped_messages()));
    if (const auto& t = parts.audit_tally)
        stats.audit_counts(t->dropped.load(), t->delivered.load(), t->failures.load());
    if (const auto& t = parts.span_tally)
        stats.span_counts(t->dropped.load(), t->delivered.load(), t->failures.load());
    if (parts.tap)
        stats.recording_counts(parts.tap->tally().delivered.load(),
                               parts.tap->tally().dropped.load());
    if (parts.supervision)
        stats.supervision_counts(*parts.supervision);
    std::vector<budget_sample> budgets;
    for (auto& b : g.budgets.standings(std::chrono::system_clock::now()))
        budgets.push_back({std::move(b.key), b.allowance, b.taken, b.spent, b.exhausted});
    stats.budget_standings(budgets);
    auto reply = http_reply::text(http::status::ok, stats.serialize());
    reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
    return reply;
}

} // namespace

asio::awaitable<std::optional<http_reply>>
gateway::impl::respond(http_request& req, beast::tcp_stream& stream, time_point start) {
    auto path = path_of(req.target());
    const auto& mcp_path = live->snap->doc->server.mcp_path; // a reload may move it
    if (auto door = door_of(live->snap->doc->server, path, req.method())) {
        // The one door in: every request the stages see enters the chain here, once; what
        // the entry answered has left by the exit. The handler continues: a message from
        // stage 4 (or with its own answer), the others with what is not an MCP request.
        auto rec = mcp_context(req, start);
        rec.peer = peer_of(stream);
        pipeline::arrival a{*door, req};
        auto entered = stages.enter(rec, a);
        if ((entered.ready() ? entered.value() : co_await entered.take()) ==
            pipeline::verdict::answered)
            co_return answer_of(rec);
        switch (*door) {
        case pipeline::door::message:
            co_return co_await mcp_post(stream, rec, a);
        case pipeline::door::stream:
            co_return co_await session_transport.get(stream, req, rec.caller, rec.peer);
        case pipeline::door::close:
            co_return co_await session_transport.remove(req, rec.caller, rec.peer);
        case pipeline::door::view:
            break;
        }
        co_return co_await view(rec, req, path);
    }
    if (path == mcp_path) {
        auto reply = error_reply({gateway_error::method_not_allowed,
                                  protocol::gateway_error_text(gateway_error::method_not_allowed)});
        reply.headers.emplace_back("Allow", "GET, POST, DELETE");
        co_return reply;
    }
    if (tokens) {
        if (path == "/oauth/token" && req.method() == http::verb::post) {
            // Unauthenticated by design: the assertion is the credential (spec: Endpoints).
            // It is no MCP request and enters no stage; its answer leaves by the exit.
            request_context rec;
            rec.start = start;
            rec.trace.record(stage::host_origin);
            auto reply = co_await tokens->redeem(req, rec);
            stages.conclude(rec);
            co_return reply;
        }
        if (path == "/.well-known/jwks.json" && req.method() == http::verb::get)
            co_return tokens->jwks();
        if (path == "/.well-known/oauth-authorization-server" && req.method() == http::verb::get)
            co_return tokens->metadata();
    }
    if (authenticator && req.method() == http::verb::get &&
        (path == "/.well-known/oauth-protected-resource" ||
         path == "/.well-known/oauth-protected-resource" + mcp_path))
        co_return protected_resource_metadata();
    if (path.starts_with("/api/") || path.starts_with("/console"))
        if (auto reply = introspect(req, path))
            co_return std::move(*reply);
    if (path == "/health" && req.method() == http::verb::get) {
        auto checker = health; // a reload may replace it while this probe runs
        auto report = co_await checker->check();
        co_return http_reply::json(report.any_up ? http::status::ok
                                                 : http::status::service_unavailable,
                                   protocol::json_text(report.body));
    }
    if (path == "/metrics" && req.method() == http::verb::get)
        co_return metrics_reply(*this);
    // Open like the console's assets: a client fetches icons without credentials (MCP's rule).
    if (path.starts_with(protocol::icon_path_prefix))
        co_return co_await icons.serve(live->snap, path, req.method() == http::verb::get);
    if (parts.fault_hooks && path.starts_with(fault_hook_prefix))
        if (auto reply = run_fault_hook(*live, parts.supervisor, req.method(), path))
            co_return std::move(*reply);
    co_return error_reply(
        {gateway_error::not_found, protocol::gateway_error_text(gateway_error::not_found)});
}

} // namespace gate::transport
