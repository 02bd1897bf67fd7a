// The audit actor: the single exit door's sink side. Receives one event per terminal
// response and writes it to the configured sinks, off the request path.
//
// Its buffer is bounded: the io thread offers each event through an audit_channel, which
// refuses (and counts) an event when `capacity` are already waiting, so a stalled sink (a
// blocked stdout pipe) costs a bounded amount of memory and never slows a request.
#pragma once

#include "actors/audit_event.hpp"
#include "config/model.hpp"

#include <atomic>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>

namespace gate {

// A reload replaced this sink: it writes what it was already given, then stops.
struct audit_close {};

using audit_actor = caf::typed_actor<caf::reacts_to<audit_event>, caf::reacts_to<audit_close>>;

// Events offered but not yet written, shared by the channel and the actor.
using audit_backlog = std::shared_ptr<std::atomic<std::int64_t>>;

class audit_channel {
public:
    // Events waiting for the sink at most; a few seconds of a busy gateway's traffic.
    static constexpr std::int64_t default_capacity = 10000;

    audit_channel() = default; // no audit section: offers are ignored
    audit_channel(audit_actor sink, audit_backlog backlog, std::int64_t capacity)
        : sink_(std::move(sink)), backlog_(std::move(backlog)), capacity_(capacity) {}

    explicit operator bool() const { return static_cast<bool>(sink_); }
    // False when the buffer was full and the event dropped.
    bool offer(audit_event e) const;
    const audit_actor& sink() const { return sink_; }

private:
    audit_actor sink_;
    audit_backlog backlog_;
    std::int64_t capacity_ = default_capacity;
};

// An empty channel when no audit section is configured: no events are emitted at all.
audit_channel spawn_audit(caf::actor_system& sys, const std::optional<config::audit>& cfg,
                          std::FILE* out = stdout,
                          std::int64_t capacity = audit_channel::default_capacity);

} // namespace gate

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::audit_event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::audit_close)
