// The audit actor: the single exit door's sink side. Receives one event per terminal
// response and writes it to the configured sinks, off the request path.
#pragma once

#include "actors/audit_event.hpp"
#include "config/model.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <cstdio>
#include <optional>

namespace gate {

// Null when no audit section is configured: no events are emitted at all.
caf::actor spawn_audit(caf::actor_system& sys, const std::optional<config::audit>& cfg,
                       std::FILE* out = stdout);

} // namespace gate

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::audit_event)
