// The audit actor: the single exit door's sink side. Receives one event per terminal
// response and writes it to the configured sinks, off the request path: stdout lines at
// once, webhook sinks in batches (actors/sinks/batcher decides; the io thread posts).
//
// Its mailbox is bounded: the io thread offers each event through an audit_channel, which
// refuses (and counts) an event when `capacity` are already waiting, so a stalled sink (a
// blocked stdout pipe) costs a bounded amount of memory and never slows a request. Each
// webhook sink's buffer is bounded the same way (batcher::limits).
#pragma once

#include "actors/message_inspection.hpp"
#include "actors/sinks/audit_event.hpp"
#include "actors/sinks/batch_delivery.hpp"
#include "config/model.hpp"

#include <atomic>
#include <boost/describe/class.hpp>
#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gate::actors {

// The events of the requests the io thread finished in one turn of its loop: one message for
// many, so a busy gateway wakes the sink a few hundred times a second, not once per request.
struct audit_batch {
    std::vector<audit_event> events;
};

using audit_close = batch_close;
using audit_flush = batch_flush;
using audit_actor = caf::typed_actor<caf::reacts_to<audit_batch>, caf::reacts_to<audit_close>,
                                     caf::reacts_to<audit_flush>, caf::reacts_to<batch_settled>,
                                     caf::reacts_to<batch_wake>>;

using audit_tally = delivery_tally;

// Where events go, and what the sink may use: given by whoever builds the process.
struct audit_outlet {
    std::FILE* out = stdout;
    batch_poster post; // needed when a webhook sink is configured
    std::shared_ptr<audit_tally> tally = std::make_shared<audit_tally>();
    batcher::limits limits = {};
    std::chrono::steady_clock::duration close_grace = std::chrono::seconds(10);
};

// Events offered but not yet taken by the actor, shared by the channel and the actor.
using audit_backlog = std::shared_ptr<std::atomic<std::int64_t>>;

class audit_channel {
public:
    // Events waiting for the sink at most; a few seconds of a busy gateway's traffic.
    static constexpr std::int64_t default_capacity = 10000;

    audit_channel() = default; // no audit section: offers are ignored
    audit_channel(audit_actor sink, audit_backlog backlog, std::int64_t capacity,
                  std::shared_ptr<audit_tally> tally)
        : sink_(std::move(sink)), backlog_(std::move(backlog)), capacity_(capacity),
          tally_(std::move(tally)) {}

    explicit operator bool() const { return static_cast<bool>(sink_); }
    // False when the buffer was full and the event dropped (counted in the tally).
    bool offer(audit_event e) const;
    // As many of `events` as there is room for, in one message; the rest are dropped (and
    // counted). Returns how many were dropped.
    std::int64_t offer_all(std::vector<audit_event> events) const;
    const audit_actor& sink() const { return sink_; }

private:
    audit_actor sink_;
    audit_backlog backlog_;
    std::int64_t capacity_ = default_capacity;
    std::shared_ptr<audit_tally> tally_;
};

// An empty channel when no audit section is configured: no events are emitted at all.
audit_channel spawn_audit(caf::actor_system& sys, const std::optional<config::audit>& cfg,
                          const audit_outlet& outlet,
                          std::int64_t capacity = audit_channel::default_capacity);

BOOST_DESCRIBE_STRUCT(audit_batch, (), (events))

} // namespace gate::actors
