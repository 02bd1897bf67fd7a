// The audit actor: the single exit door's sink side. Receives one event per terminal
// response and writes it to the configured sinks, off the request path: stdout lines at
// once, webhook sinks in batches (actors/webhook_batcher decides; the io thread posts).
//
// Its mailbox is bounded: the io thread offers each event through an audit_channel, which
// refuses (and counts) an event when `capacity` are already waiting, so a stalled sink (a
// blocked stdout pipe) costs a bounded amount of memory and never slows a request. Each
// webhook sink's buffer is bounded the same way (webhook_batcher::limits).
#pragma once

#include "actors/audit_event.hpp"
#include "actors/reply.hpp"
#include "actors/webhook_batcher.hpp"
#include "config/model.hpp"

#include <atomic>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
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

namespace gate {

// A reload replaced this sink: it delivers what it was already given (webhook batches get
// `close_grace` to go through), then stops.
struct audit_close {};
// gate is stopping: deliver what is buffered now, and say true once nothing is left. The
// caller bounds the wait.
struct audit_flush {
    reply_to<bool> reply;
};
// Internal: a webhook delivery of sink `sink` settled; a timer of the batchers fired.
struct audit_webhook_settled {
    std::size_t sink = 0;
    webhook_batcher::result result = webhook_batcher::result::failed;
    std::string detail; // what failed, for the log
};
struct audit_webhook_wake {};

using audit_actor =
    caf::typed_actor<caf::reacts_to<audit_event>, caf::reacts_to<audit_close>,
                     caf::reacts_to<audit_flush>, caf::reacts_to<audit_webhook_settled>,
                     caf::reacts_to<audit_webhook_wake>>;

// One POST of a batch, performed by the io thread (actors never see HTTP).
struct webhook_delivery {
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers; // configured ones and the key
    std::string body;
    // How it went; what failed, when it failed or was refused.
    reply_to<std::pair<webhook_batcher::result, std::string>> reply;
};
using webhook_poster = std::function<void(webhook_delivery)>;

// What the sinks have done, read by /metrics (the actor writes, scrapes read).
struct audit_tally {
    std::atomic<std::int64_t> dropped{0};           // mailbox or a webhook buffer full, refused
    std::atomic<std::int64_t> webhook_delivered{0}; // events the receivers accepted
    std::atomic<std::int64_t> webhook_failures{0};  // attempts that failed (and are retried)
};

// Where events go, and what the sink may use: given by whoever builds the process.
struct audit_outlet {
    std::FILE* out = stdout;
    webhook_poster post; // needed when a webhook sink is configured
    std::shared_ptr<audit_tally> tally = std::make_shared<audit_tally>();
    webhook_batcher::limits limits = {};
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

} // namespace gate

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::audit_event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::audit_close)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::audit_flush)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::audit_webhook_settled)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::audit_webhook_wake)
