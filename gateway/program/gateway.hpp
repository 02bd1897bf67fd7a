// The gateway's HTTP face: the listener, one coroutine per connection, the MCP endpoint
// (POST/GET/DELETE on server.mcpPath) and the operational endpoints. HTTP ends here: what
// crosses into the actors is a typed message (actors/bridge.hpp).
#pragma once

#include "actors/bridging/bridge_ledger.hpp"
#include "actors/federation/snapshot.hpp"
#include "actors/supervision/supervisor.hpp"
#include "gateway/entry/health.hpp"
#include "gateway/entry/introspection.hpp"
#include "gateway/mcp/session_table.hpp"
#include "gateway/operations/metrics.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/upstream/upstream_client.hpp"
#include "protocol/outcome.hpp"
#include "protocol/shard_key.hpp"
#include "transport/http/host_guard.hpp"
#include "transport/redis/redis_client.hpp"

#include <array>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json/object.hpp>
#include <caf/actor.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace gate::gateway {
class traffic_tap;
class shared_upstreams;
class definition_reports;
} // namespace gate::gateway

namespace gate::gateway::program {

class gateway_components;

struct gateway_parts {
    // The actors, as the supervisor publishes them (a respawned actor replaces its entry).
    // Its bridge keeper may be null (calls not tracked), its task keeper too (tasks not
    // pinned), its audit channel empty (no audit section).
    std::shared_ptr<actors::actor_directory> actors;
    std::shared_ptr<const actors::snapshot> snap;
    actors::supervisor_actor supervisor; // null in tests that wire the actors themselves
    bool fault_hooks = false;            // gateway/entry/fault_hooks.hpp: tests only
    // The shared store of a fleet (server.redisUrl, else REDIS_URL), answering PING at start;
    // absent: every instance keeps its own state.
    std::optional<transport::redis_endpoint> shared_store;
    // The fleet's cursor key as this instance took it at start: written back (if absent) while
    // it runs, so a store that lost its data gives instances started later the same key.
    std::array<unsigned char, 32> fleet_cursor_key{};
    // What the audit sinks did (drops, webhook deliveries), read at each scrape.
    std::shared_ptr<const actors::audit_tally> audit_tally;
    // What discovery's last poll found (io thread only), for /api/federation.
    std::shared_ptr<const discovery_report> discovery;
    // What trace export did (spans exported, dropped), read at each scrape.
    std::shared_ptr<const actors::delivery_tally> span_tally;
    // gate --record: what the gateway hears goes to the recorder through it; null: not
    // recording.
    std::shared_ptr<traffic_tap> tap;
    // What supervision did (restarts, give-ups by kind of actor), read at each scrape.
    std::shared_ptr<const actors::supervision_tally> supervision;
    // This io thread among the process's (docs/io-threads.md): the first speaks to the actors
    // for all of them (the upstreams they adopt, each reload's snapshot).
    protocol::shard_place shard;
    // The series every io thread counts in (null: this gateway's own).
    std::shared_ptr<metrics> stats;
    // Where every io thread's client of an upstream entry finds the others (null: one thread).
    std::shared_ptr<shared_upstreams> upstreams;
    // The pinned definitions every io thread judges its lists by (null: this gateway's own).
    std::shared_ptr<definition_reports> definitions;
    // Every io thread's downstream sessions counted against server.sessions (null: one thread).
    std::shared_ptr<session_census> sessions;
};

class gateway {
public:
    gateway(boost::asio::io_context& io, gateway_parts parts);
    ~gateway();

    // Binds host:port (0 picks a free port), starts accepting and start()s; returns the bound
    // port.
    std::uint16_t listen(const std::string& host, std::uint16_t port);
    // What runs beside the requests (the sessions' sweep, the fleet's follower, the upstreams'
    // warm-up): a gateway of another io thread, which takes its connections from the one that
    // listens, starts with this alone (on its io thread).
    void start();
    // The gateways of the process's io threads, each on an io_context of its own: the first
    // listens for all, and each request is answered on the thread that keeps what it names
    // (docs/io-threads.md). Before the first listens.
    static void group(const std::vector<gateway*>& all);
    // Stops accepting, ends every session and its streams.
    void stop();
    // stop(), then waits (up to `bound`) for requests being answered, then calls `then` on the
    // io thread.
    void drain(std::chrono::steady_clock::duration bound, std::function<void()> then);

    // Swaps in a validated document (must run on the io thread). Upstreams whose entry is
    // unchanged keep their client and live session; the rest are rebuilt. Sections wired at
    // construction (server, auth, audit, tracing) cannot change: the answer names the first
    // that did and nothing is applied. Connected clients receive list_changed.
    // `source` names what asked (reload, discovery) in the log line.
    std::optional<std::string> reload(std::shared_ptr<const config::document> doc,
                                      std::string_view source = "reload");
    // The snapshot requests load now (io thread): the one a reload made, which the other io
    // threads then adopt as it is (adopt).
    std::shared_ptr<const actors::snapshot> snapshot() const;
    // Another io thread's reload, applied here (on this gateway's io thread): the same snapshot,
    // its upstream clients made on this thread.
    void adopt(std::shared_ptr<const actors::snapshot> snap, std::string_view source);
    // Hands the audit events and spans queued this turn to their sinks now (before a flush).
    void feed_sinks();
    // An event that is no request's (on the io thread): audited with this turn's.
    void audit(actors::audit_event e);
    // `gate definitions lock`: lists every upstream's tools as gate's own (on the io thread)
    // and hands `done` the lock file's text, one line per tool, sorted; or, with `ok` false,
    // what could not be listed.
    void definitions_lock(std::function<void(bool ok, std::string text)> done);
    // One discovery poll's outcome (gate_discovery_syncs_total) and the discovered upstreams it
    // left out (gate_discovery_refused_upstreams_total).
    void count_discovery(std::string_view outcome, std::size_t refused);

    // Ends the named bridged sessions (the bridge keeper's sweep, ended downstream sessions).
    // Runs on the io thread.
    void retire_bridges(std::vector<actors::retired_bridge> gone);

    // Observes every finished MCP request (tests pin the pipeline order with it).
    std::function<void(const request_context&)> on_request;

private:
    std::unique_ptr<gateway_components> components_;
};

} // namespace gate::gateway::program
