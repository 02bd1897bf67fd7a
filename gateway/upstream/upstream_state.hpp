// What every unit of one upstream's client reads (upstream_client.hpp): the upstream's
// configuration, the io thread's executor, whether each caller brings its own credential, the
// era it speaks, whether the client is closed, the ids of gate's requests, its tools'
// `x-mcp-header` annotations and which are app-only, and what keeps the
// client alive while a unit's background work runs (a drain, a DELETE, a GET stream). The
// client owns it; each unit holds a reference, so none holds the client.
#pragma once

#include "config/model.hpp"
#include "gateway/upstream/tool_facts.hpp"
#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_credential.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <memory>

namespace gate::gateway {

class upstream_siblings;

struct upstream_state {
    upstream_state(boost::asio::any_io_executor executor, config::upstream upstream)
        : upstream_state(std::move(executor),
                         std::make_shared<const config::upstream>(std::move(upstream))) {}
    upstream_state(boost::asio::any_io_executor executor,
                   std::shared_ptr<const config::upstream> upstream)
        : ex(std::move(executor)), entry(std::move(upstream)), cfg(*entry),
          per_caller(gateway::per_caller(cfg.auth)),
          modern(cfg.protocol == config::protocol_mode::v2026_07_28),
          era_known(cfg.protocol != config::protocol_mode::auto_) {}

    boost::asio::any_io_executor ex;
    // The upstream's entry, one copy for its clients on every io thread (upstream_siblings).
    const std::shared_ptr<const config::upstream> entry;
    const config::upstream& cfg;
    // The upstream takes each caller's own credential (passthrough, token-exchange): no shared
    // session or list serves two principals.
    const bool per_caller;
    // The upstream's era: fixed by `protocol`, or learnt by the first handshake for `auto`.
    bool modern;
    bool era_known;
    bool closed = false;      // no new session opens; background work ends
    bool retiring = false;    // a reload retired it: it closes once no request is in flight
    std::int64_t next_id = 1; // the upstream-side id of gate's next request
    // What the lists gate fetched said of each tool (app-only, hints, withheld; the
    // Mcp-Param-* annotations): the entry's, shared with its clients on the other io threads.
    std::shared_ptr<shared_tool_facts> facts = std::make_shared<shared_tool_facts>();
    // The clients of the same entry on the other io threads (null: alone).
    std::shared_ptr<upstream_siblings> siblings;
    // Pinned definitions, judged at each tools list (null: none, as in unit tests).
    std::shared_ptr<definition_watch> definitions;
    // Its pin is `block`: resolved when the watch is set, at start and at each reload (the
    // mode changes only with the document), not on every call.
    bool blocks_changed = false;
    std::chrono::steady_clock::time_point tools_relearnt{}; // after a -32020, at most every 10 s
    // What the unfinished events of its long-lived streams (gate's listen, its sessions' GET
    // streams) hold together: one upstream's sessions cannot each hold an event's bound.
    std::size_t unfinished_event_bytes = 0;
    // What its answers being read hold together (calls in flight at it): each call cannot hold
    // an answer's bound.
    std::size_t answer_bytes_read = 0;
    // What the last handshake (initialize, or 2026-07-28 discovery) of any of its sessions
    // answered: serverInfo, protocolVersion, capabilities (empty: none yet). /api/federation
    // shows its identity from it. One copy for the entry's clients on every io thread
    // (upstream_siblings), read-only once made.
    std::shared_ptr<const boost::json::object> identity;
    // The client that owns this state. Background work holds it (hold()) for its length, as a
    // coroutine of the client holds the client.
    std::weak_ptr<void> owner;
    std::shared_ptr<void> hold() const { return owner.lock(); }

    // timeouts.requestMs, or the caller's tighter budget.
    std::chrono::milliseconds budget_for(const call_context& ctx) const {
        auto budget = std::chrono::milliseconds(cfg.timeouts.request_ms);
        return ctx.timeout && *ctx.timeout < budget ? *ctx.timeout : budget;
    }
};

} // namespace gate::gateway
