// The composition root: every component of the gateway, built in the order the members are
// listed (each from what is above it; the few references to a component listed later are
// bound, not used, until requests run: the upstream traffic, the stages and the views, named
// where they are), then wired in the constructor's body (gateway_components.cpp). The facade
// (gateway.hpp) owns it; nothing else reaches into it.
#pragma once

#include "actors/bridging/bridge_messages.hpp"
#include "actors/federation/federation.hpp"
#include "gateway/accounts/account_relay.hpp"
#include "gateway/auth/token_authenticator.hpp"
#include "gateway/auth/token_endpoint.hpp"
#include "gateway/entry/gate_routes.hpp"
#include "gateway/entry/http_face.hpp"
#include "gateway/entry/introspection_views.hpp"
#include "gateway/mcp/bridge_line.hpp"
#include "gateway/mcp/call_routes.hpp"
#include "gateway/mcp/call_streams.hpp"
#include "gateway/mcp/client_requests.hpp"
#include "gateway/mcp/client_traffic.hpp"
#include "gateway/mcp/downstream_sessions.hpp"
#include "gateway/mcp/endpoint.hpp"
#include "gateway/mcp/fleet_sessions.hpp"
#include "gateway/mcp/icon_proxy.hpp"
#include "gateway/mcp/list_changed_feed.hpp"
#include "gateway/mcp/list_methods.hpp"
#include "gateway/mcp/listen_hub.hpp"
#include "gateway/mcp/listen_methods.hpp"
#include "gateway/mcp/parked_inputs.hpp"
#include "gateway/mcp/router_line.hpp"
#include "gateway/mcp/server_request_table.hpp"
#include "gateway/mcp/subscription_holds.hpp"
#include "gateway/mcp/task_ledger.hpp"
#include "gateway/mcp/task_methods.hpp"
#include "gateway/mcp/upstream_calls.hpp"
#include "gateway/mcp/upstream_traffic.hpp"
#include "gateway/operations/traffic_history.hpp"
#include "gateway/pipeline/chain.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "gateway/pipeline/decision_hook_client.hpp"
#include "gateway/pipeline/request_guards.hpp"
#include "gateway/pipeline/request_sinks.hpp"
#include "gateway/program/first_use_clients.hpp"
#include "gateway/program/gateway.hpp"
#include "gateway/program/io_peers.hpp"
#include "gateway/upstream/definition_reports.hpp"
#include "gateway/upstream/live_federation.hpp"
#include "gateway/upstream/upstream_siblings.hpp"
#include "policy/policy_engine.hpp"
#include "process/log_gate.hpp"
#include "protocol/gateway_error.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/list_kind.hpp"
#include "protocol/subscription_filter.hpp"
#include "transport/http/event_stream.hpp"
#include "transport/http/http_reply.hpp"
#include "transport/http/http_server.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

namespace gate::gateway::program {

// How a thread makes the client of a view's entry at its first use (null: every client is
// made with the view).
using client_maker =
    std::function<std::shared_ptr<upstream_client>(const federation_view&, std::size_t)>;

// The view of a snapshot: its entries (an unchanged one keeps its siblings and its client from
// `previous`; the others' siblings from `shared`, where the other io threads' clients of them
// are, or new with one thread: null), the clients made now unless `maker` makes them at first
// use, and the server section's allowlist.
std::shared_ptr<const federation_view> make_view(boost::asio::io_context& io,
                                                 std::shared_ptr<const actors::snapshot> snap,
                                                 const federation_view* previous,
                                                 shared_upstreams* shared, client_maker maker = {});

class gateway_components final {
public:
    // `on_request`: the facade's hook (gateway::on_request), which outlives this.
    gateway_components(boost::asio::io_context& io, gateway_parts parts,
                       const std::function<void(const request_context&)>& on_request);
    gateway_components(const gateway_components&) = delete;
    gateway_components& operator=(const gateway_components&) = delete;

    // Opens every upstream's root session in the background and logs the outcome. A reload's
    // warm-up ends the one before it: a client the reload retired is not handshaken with.
    void warm_up(const federation_view& view);
    // A reload's clients, before its view is adopted: those it no longer has retire (their
    // calls finish, their bridged sessions and server requests end), the new ones are wired
    // and every one judges its tools again under the new pins. How many were kept.
    std::size_t take_clients(const federation_view& next);

    // Wiring (gateway_components.cpp): an upstream client's session-wide traffic heard here.
    void wire(const std::shared_ptr<upstream_client>& client);
    // Users' tokens kept in the fleet's store, sealed with server.vault's keys (checked at
    // start with the other secrets); a user-account upstream with a store and no key stops
    // the start: tokens are never kept there in clear.
    void share_accounts(const config::document& d);
    // A user's account event (login, refresh, refusal): audited and counted; never a token.
    void account_news(const accounts::account_event& e);
    // The other io threads' components (docs/io-threads.md): what this thread hears that
    // their clients must hear goes to them.
    void join_peers(std::shared_ptr<const io_peers> all);
    // The first io thread, which keeps for every thread what the process has once
    // (docs/io-threads.md): users' accounts (this thread's calls and upstream clients ask its),
    // auth.ema's redemptions, and the key sets and introspection answers of stage 2.
    void lean_on(gateway_components& first);

private:
    std::shared_ptr<const io_peers> peers_;
    // What /metrics sums from the other io threads (join_peers).
    other_thread_counts count_other_threads;
    // Which warm-up is the current one (warm_up): its workers stop when another starts.
    std::shared_ptr<std::uint64_t> warm_up_round_ = std::make_shared<std::uint64_t>(0);
    // The components are the facade's (gateway.cpp: listen, stop, drain, reload) and nobody
    // else's: no unit beside it reaches one through this list.
    friend class gateway;

    void tell_of_reloads();
    // The first io thread makes every client with its view; the others at first use
    // (federation_view::maker), wired as a reload wires the view's.
    client_maker maker();

    // Resource subscriptions gate holds at upstreams for a holder (a listener, or a session
    // subscribed at a 2026-07-28 upstream), and the open listens of 2026-07-28 clients, by
    // holder key ("listen-<n>"): gateway/mcp/listen_methods.
    subscription_holds holds;
    listen_hub listens;

    boost::asio::io_context& io;
    gateway_parts parts;
    // Where what a request leaves goes at the exit: audit events and spans to their sinks
    // once per turn of the loop, gate --record's tap, the embedder's hook.
    request_sinks sinks;
    // The rate windows and budgets of stages 3 and 6 and the task methods (their leases and
    // reservations; a reload revokes the leases).
    pipeline::request_guards guards{*parts.actors};
    // The actors as they stand now (a respawn replaces one); hold the result for one use.
    std::shared_ptr<const actors::actor_set> actors() const { return parts.actors->load(); }
    // Events for the bridge keeper, one batch per interval, flushed before every question.
    bridge_line keeper{io.get_executor(), *parts.actors};
    // An upstream's list_changed for every connected client, coalesced per kind (broadcast).
    list_changed_feed list_changes{io.get_executor(), downstream};
    const config::document& doc;
    // The io threads' series (gateway_parts::stats), or this gateway's own.
    std::shared_ptr<metrics> counted = parts.stats ? parts.stats : std::make_shared<metrics>();
    metrics& stats = *counted;
    // The console's short history of requests, kept by the exit (stage 9) on the io thread.
    traffic_history traffic;
    // The upstreams' icons under gate's origin: lists rewritten, GET /icons/... answered.
    icon_proxy icons{[this](const std::string& upstream, std::string_view reason) {
        stats.icon_dropped(upstream, reason);
    }};
    // Pinned tool definitions, judged at each tools list an upstream client fetches.
    // The io threads' (gateway_parts::definitions), or this gateway's own.
    std::shared_ptr<definition_reports> definitions =
        parts.definitions
            ? parts.definitions
            : std::make_shared<definition_reports>(
                  stats, [this](actors::audit_event e) { sinks.audit(std::move(e)); });
    // The federation's view as it stands, and who adopts a reload's (the constructor lists
    // them in order).
    live_federation live;
    // A thread beyond the first makes its clients here (maker), wired as a reload wires the
    // view's and told the levels its sessions set.
    first_use_clients first_use{io.get_executor(), live, [this](const auto& c) {
                                    wire(c);
                                    from_clients.tell_levels(*c);
                                }};
    // GET /health's and /api/federation's rounds over the view's clients (the first io
    // thread's, on every thread: lean_on).
    health_watch health{live, !doc.auth.required};
    // The downstream sessions: their table, their records in a fleet, admission, streams and
    // ends.
    downstream_sessions downstream{live, keeper, holds, listens, stats};
    // Requests gate puts to clients and waits on (server requests, input requests, parked calls).
    client_requests requests{downstream.fleet()};
    // Each user's own account at the user-account upstreams: the tokens, the logins and the
    // pages a user's browser meets (docs/user-accounts.md); and how a call sends its user there.
    // Kept here on one io thread and on the first of several; the others ask the first's
    // (lean_on: `desk` is then their relay).
    accounts::user_accounts accounts{io.get_executor()};
    std::unique_ptr<accounts::account_relay> account_relay;
    accounts::account_desk* desk = &accounts;
    account_logins logins{*desk, requests, downstream.table()};
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
    // The HTTP face: admission, refusals, the route table's endpoints.
    http_face face{{stats,
                    stages,
                    live,
                    endpoint,
                    downstream.streams(),
                    downstream.table(),
                    views,
                    icons,
                    health,
                    guards.budgets(),
                    tokens.get(),
                    accounts,
                    authenticator != nullptr,
                    doc.auth,
                    parts.audit_tally,
                    parts.span_tally,
                    parts.tap,
                    parts.supervision,
                    parts.supervisor,
                    parts.fault_hooks,
                    parts.shard.count,
                    &count_other_threads}};
    transport::http_server server;
    // The MCP method groups (gateway/mcp/).
    upstream_calls calls{upstream_news, keeper, stats, downstream.table(), requests, logins};
    // The routers' questions, and the task records (the keeper's, the fleet's).
    router_line routers{*parts.actors, calls, icons, downstream.fleet(), list_changes};
    task_ledger ledger{*parts.actors};
    task_methods tasks{{ledger, guards.budgets(), calls, routers, &decisions, icons}};
    list_methods lists{{routers, calls, downstream.fleet(), stats, downstream.table()}};
    call_routes routes{routers, calls, lists};
    client_traffic from_clients{requests, keeper, downstream.table()};
    upstream_traffic upstream_news{
        io.get_executor(),
        {live, routers, downstream.table(), listens, keeper, requests, stages, &decisions}};
    listen_methods listening{
        listens, holds, routes, tasks, {live, keeper, stages, &decisions, icons}};
    call_streams call_paths{stages, upstream_news, requests.inputs(), requests};
    mcp_endpoint endpoint{stages, from_clients, call_paths, calls, listening};
    // The introspection views (/api/federation, /api/explain, /api/traffic, /api/catalog).
    introspection_views views{live, health, icons, lists, *parts.actors, traffic, parts.discovery};
    // The nine stages (gateway/pipeline/): every request leaves through its exit.
    pipeline::chain stages;
};

} // namespace gate::gateway::program
