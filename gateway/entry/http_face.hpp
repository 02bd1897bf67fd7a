// The gateway's HTTP face (transport/http/http_server.hpp's handler): stage 1 at admission,
// the server's refusals worded and counted, and each request's endpoint found in the route
// table (gate_routes.hpp) and answered: the MCP endpoint's messages enter the chain by their
// door and go on to mcp_endpoint; the rest to the component that serves them.
#pragma once

#include "actors/sinks/audit.hpp"
#include "actors/sinks/batch_delivery.hpp"
#include "actors/supervision/supervision_tally.hpp"
#include "actors/supervision/supervisor.hpp"
#include "gateway/entry/health.hpp"
#include "gateway/entry/introspection_views.hpp"
#include "gateway/mcp/endpoint.hpp"
#include "gateway/mcp/icon_proxy.hpp"
#include "gateway/mcp/session_streams.hpp"
#include "gateway/mcp/session_table.hpp"
#include "gateway/operations/metrics.hpp"
#include "gateway/pipeline/budget_charger.hpp"
#include "gateway/pipeline/chain.hpp"
#include "gateway/upstream/live_federation.hpp"
#include "protocol/gateway_error.hpp"
#include "transport/http/host_guard.hpp"
#include "transport/http/http_server.hpp"

#include <boost/beast/core/tcp_stream.hpp>
#include <functional>
#include <memory>
#include <string>

namespace gate::gateway {

class token_endpoint;
class traffic_tap;
namespace accounts {
class user_accounts;
}

// One request at an endpoint of the route table.
struct endpoint_call {
    transport::http_request& req;
    boost::beast::tcp_stream& stream;
    std::string_view path;
    std::chrono::steady_clock::time_point start;
    request_context* rec = nullptr; // the chain's, for an endpoint behind a door
    pipeline::arrival* arrival = nullptr;
};

// What a scrape sums over the io threads (docs/io-threads.md): each thread's own sessions, its
// clients' bridged sessions, its outboxes' drops and its budget reservations, counted on that
// thread.
struct thread_counts {
    std::size_t sessions = 0, bridged = 0;
    std::uint64_t dropped = 0;
    std::vector<actors::budget_ledger::standing> budgets;
    // `other`'s counts added in: a budget account's reservations and charges summed.
    void add(thread_counts other);
};
// The other io threads' counts, summed (empty: one thread).
using other_thread_counts = std::function<boost::asio::awaitable<thread_counts>()>;

// What the face answers with, each by its owner. The Host/Origin allowlist is the running
// view's (`live`), the health checker the running watch's: a reload replaces both.
struct http_face_parts {
    metrics& stats;
    pipeline::chain& stages;
    const live_federation& live;
    mcp_endpoint& endpoint;
    session_streams& streams;
    const session_table& sessions;
    introspection_views& views;
    icon_proxy& icons;
    health_watch& health;
    const budget_charger& budgets;
    token_endpoint* tokens;            // auth.ema's (null: none)
    accounts::user_accounts& accounts; // the login pages of user-account upstreams
    bool inbound_auth;                 // auth.mode "required"
    const config::auth& auth;
    // What a scrape reports beside the components' own counts (each may be null).
    std::shared_ptr<const actors::audit_tally> audit_tally;
    std::shared_ptr<const actors::delivery_tally> span_tally;
    std::shared_ptr<traffic_tap> tap;
    std::shared_ptr<const actors::supervision_tally> supervision;
    actors::supervisor_actor supervisor;         // the test-only fault hooks' target
    bool fault_hooks;                            // gateway/entry/fault_hooks.hpp: tests only
    std::size_t io_threads = 1;                  // the process's (thread_affinity.hpp)
    const other_thread_counts* others = nullptr; // set once the threads are grouped
};

// This io thread's own counts (on it).
thread_counts counts_of(const live_federation& live, const session_table& sessions,
                        const budget_charger& budgets);

class http_face final : public transport::http_handler {
public:
    explicit http_face(http_face_parts parts) : p_(parts) {}

    // Stage 1 (Host/Origin), before anything else, on every endpoint.
    std::optional<transport::http_reply> admit(const transport::http_request& req,
                                               time_point start) override;
    // What the HTTP server refuses, worded from the table of errors and counted (audited
    // where a request was read).
    transport::http_reply refused(transport::server_refusal why, std::size_t limit,
                                  time_point start) override;
    boost::asio::awaitable<std::optional<transport::http_reply>>
    respond(transport::http_request& req, boost::beast::tcp_stream& stream,
            const boost::asio::ip::address& peer, time_point start) override;
    // The io thread that keeps what the request names (thread_affinity.hpp).
    std::optional<std::size_t> owner(const transport::http_request& req, bool body_read) override;

private:
    // A request on the MCP endpoint: its context, with what stage 2 checks.
    request_context mcp_context(const transport::http_request& req, time_point start) const;
    // A refusal before any request context exists (at admission, the body cap): through the
    // exit like any other.
    void reject_http(protocol::gateway_error e, std::string text,
                     std::chrono::steady_clock::time_point start);

    http_face_parts p_;
};

} // namespace gate::gateway
