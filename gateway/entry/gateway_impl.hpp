// Internals shared by the gateway's translation units (listener, MCP endpoint, stages).
#pragma once

#include "actors/bridging/bridge_messages.hpp"
#include "actors/federation/federation.hpp"
#include "actors/policy/policy_engine.hpp"
#include "gateway/auth/decision_hook_client.hpp"
#include "gateway/auth/token_authenticator.hpp"
#include "gateway/auth/token_endpoint.hpp"
#include "gateway/entry/definition_reports.hpp"
#include "gateway/entry/gateway.hpp"
#include "gateway/entry/guard_stage_services.hpp"
#include "gateway/entry/mcp_method_services.hpp"
#include "gateway/entry/mcp_stage_services.hpp"
#include "gateway/fleet/fleet_sessions.hpp"
#include "gateway/mcp/keeper_feed.hpp"
#include "gateway/mcp/list_changed_feed.hpp"
#include "gateway/mcp/listen_hub.hpp"
#include "gateway/mcp/parked_inputs.hpp"
#include "gateway/mcp/server_request_table.hpp"
#include "gateway/mcp/subscription_holds.hpp"
#include "gateway/operations/icon_proxy.hpp"
#include "gateway/operations/sink_feed.hpp"
#include "gateway/operations/traffic_history.hpp"
#include "gateway/pipeline/chain.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "protocol/gateway_error.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/list_kind.hpp"
#include "protocol/subscription_filter.hpp"
#include "transport/http/event_stream.hpp"
#include "transport/http/http_reply.hpp"
#include "transport/http/http_server.hpp"
#include "transport/process/log_gate.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

namespace gate::transport {

struct gateway::impl final : http_handler,
                             list_changed_feed::audience,
                             fleet_sessions::gateway_side {
    impl(boost::asio::io_context& io, gateway_parts parts);

    // http_handler: stage 1 (Host/Origin) in admit, the endpoints in respond.
    std::optional<http_reply> admit(const http_request& req, time_point start) override;
    // What the HTTP server refuses, worded from the table of errors and counted (audited
    // where a request was read).
    http_reply refused(server_refusal why, std::size_t limit, time_point start) override;
    boost::asio::awaitable<std::optional<http_reply>>
    respond(http_request& req, boost::beast::tcp_stream& stream, time_point start) override;

    boost::asio::awaitable<void> sweep_sessions();
    // Opens every upstream's root session in the background and logs the outcome.
    void warm_up(const federation_view& view);

    // The MCP endpoint. A POST's message, from where the chain's entry left it (read, limited,
    // traced, its session checked: chain::enter).
    boost::asio::awaitable<std::optional<http_reply>>
    mcp_post(boost::beast::tcp_stream& stream, request_context& rec, pipeline::arrival& a);
    // A request on the MCP endpoint: its context, with what stage 2 checks.
    request_context mcp_context(const http_request& req, time_point start) const;
    // RFC 9728 resource metadata (with auth.mode "required").
    http_reply protected_resource_metadata() const;
    // /api/auth-hint, /console/ and a /api/federation that is not a GET
    // (gateway/operations/introspection_routes.cpp); nullopt for any other path, or when the
    // endpoint is not enabled.
    std::optional<http_reply> introspect(const http_request& req, std::string_view path);
    // GET /api/federation, once the chain's entry admitted it (pipeline::door::view).
    // An icon another instance (or this one before a restart) listed: the upstream's identity
    // and gate's own lists, rewritten here so the icon proxy knows it (icon_proxy::learner).
    boost::asio::awaitable<void> learn_icons(std::shared_ptr<const snapshot> snap,
                                             std::size_t upstream);
    boost::asio::awaitable<http_reply> view_federation(request_context& rec);
    // GET /api/explain: which rule decides the invocation the query names, for the caller.
    http_reply explain_invocation(const request_context& rec, const http_request& req) const;
    // The introspection views (is_view_path), once the chain's entry admitted the viewer:
    // /api/federation, /api/explain, and the console's /api/traffic and /api/catalog
    // (gateway/operations/introspection_routes.cpp).
    boost::asio::awaitable<http_reply> view(request_context& rec, const http_request& req,
                                            std::string_view path);
    http_reply view_traffic(const request_context& rec) const;
    boost::asio::awaitable<http_reply> view_catalog(request_context& rec);

    // Wiring (gateway/entry/wiring.cpp): an upstream client's session-wide traffic heard here.
    void wire(const std::shared_ptr<upstream_client>& client);
    // list_changed_feed::audience: every connected client hears a list's news.
    void broadcast(const boost::json::object& news) override;
    void session_ended(std::string session) override;
    // fleet_sessions::gateway_side: a session the fleet adopted, admitted like any other.
    bool admitted(const session_table::admission& a) override {
        return session_opening.admitted(a);
    }
    boost::asio::awaitable<std::optional<http_reply>>
    mcp_stateless(const http_request& req, boost::beast::tcp_stream& stream, protocol::message msg,
                  request_context& rec);
    // A 2026-07-28 server/discover: the federation described, no session made.
    boost::asio::awaitable<http_reply> server_discover(const protocol::message& msg,
                                                       request_context& rec);
    // Resource subscriptions gate holds at upstreams for a holder (a listener, or a session
    // subscribed at a 2026-07-28 upstream), and the open listens of 2026-07-28 clients, by
    // holder key ("listen-<n>"): gateway/mcp/listen_methods.
    subscription_holds holds;
    listen_hub listens;
    std::uint64_t minted_ids = 0;         // ids of requests gate puts to clients
    server_request_table server_requests; // upstream requests the clients have not answered
    // Input requests put to clients awaiting their answers, and 2026-07-28 clients' calls
    // parked until their retry (input_required).
    parked_inputs inputs;

    // What the stages that admit and record a request ask of the gateway's parts
    // (gateway/entry/guard_stage_services.hpp); made before the stages that hold it.
    guard_stage_services guard_services{*this};
    // Stage 3's leases of the limiter's slots (a reload drops what they hold).
    pipeline::limit_leases limit_leases;
    // Budgets of upstream invocations (server, upstream, tenant), charged at stage 6 and by
    // the task methods (gateway/pipeline/budget_charger).
    budget_charger budgets{guard_services};

    // A refusal before any request context exists (at admission, the body cap): through the
    // exit like any other.
    void reject_http(protocol::gateway_error e, std::string text,
                     std::chrono::steady_clock::time_point start);

    boost::asio::io_context& io;
    gateway_parts parts;
    // The actors as they stand now (a respawn replaces one); hold the result for one use.
    std::shared_ptr<const actor_set> actors() const { return parts.actors->load(); }
    // Events for the bridge keeper, one batch per interval, flushed before every question.
    current_keeper keeper_line{*parts.actors};
    keeper_feed keeper{io.get_executor(), keeper_line};
    // An upstream's list_changed for every connected client, coalesced per kind (broadcast).
    list_changed_feed list_changes{io.get_executor(), *this};
    // Audit events and spans of finished requests, to their sinks once per turn of the loop.
    current_sinks sink_line{*parts.actors};
    sink_feed sinks{io.get_executor(), sink_line};
    // gate --record (gateway/operations/recording_feed.cpp): the message as it arrived, and at the
    // exit what became of it.
    void hear(const http_request& req, request_context& rec);
    void heard_exit(request_context& rec);
    const config::document& doc;
    host_guard guard;
    metrics stats;
    // The console's short history of requests, kept by the exit (stage 9) on the io thread.
    traffic_history traffic;
    // The upstreams' icons under gate's origin: lists rewritten, GET /icons/... answered.
    icon_proxy icons{[this](const std::string& upstream, std::string_view reason) {
        stats.icon_dropped(upstream, reason);
    }};
    // Pinned tool definitions, judged at each tools list an upstream client fetches.
    std::shared_ptr<definition_reports> definitions = std::make_shared<definition_reports>(
        stats, [this](audit_event e) { sinks.audit(std::move(e)); });
    session_table sessions;
    // The sessions, lists and server requests a fleet shares (gateway/fleet/fleet_sessions.hpp),
    // and what the fleet's side asks of the gateway.
    fleet_sessions in_fleet{sessions, *this};
    bool stopping() const override { return server.stopping(); }
    std::shared_ptr<const federation_view> current_view() const override { return live; }
    std::shared_ptr<const federation_view> live;
    std::shared_ptr<health_checker> health;
    // The fleet's shared store (null without one): stages 3 and 6, the upstream clients, the
    // token endpoint and the task table go to it first and fall back to their own state.
    std::shared_ptr<fleet_store> fleet;
    // Stage 2's checker with auth.mode "required" (null: every caller is anonymous), and the
    // resource metadata URL its challenges point at.
    std::unique_ptr<token_endpoint> tokens; // auth.ema: POST /oauth/token and its key set
    std::unique_ptr<token_authenticator> authenticator;
    std::string resource_metadata;
    // policy.decisionHook, asked by stages 5 and 8 and for upstreams' requests to clients.
    decision_hook_client decisions{io.get_executor(), stats};
    http_server server;
    // What the MCP method groups ask of the gateway, and the groups (gateway/mcp/).
    mcp_method_services method_services{*this};
    session_admission session_opening{sessions, method_services};
    session_streams session_transport{sessions, method_services};
    upstream_calls calls{method_services};
    task_methods tasks{method_services};
    list_methods lists{method_services};
    call_routes routes{method_services, lists};
    client_traffic from_clients{method_services};
    upstream_traffic upstream_news{io.get_executor(), method_services};
    listen_methods listening{listens, holds, routes, tasks, method_services};
    call_streams call_paths{stages, upstream_news, inputs, method_services};
    // What stages 4, 7 and 8 ask of the gateway; made before the stages that hold it.
    mcp_stage_services call_services{*this};
    // The nine stages (gateway/pipeline/): every request leaves through its exit.
    pipeline::chain stages;
    std::function<void(const request_context&)>* on_request = nullptr;
};

} // namespace gate::transport
