// The audit actor: the single exit door's sink side. Receives one event per terminal
// response and writes it to the configured sinks, off the request path.
#pragma once

#include "actors/audit_event.hpp"
#include "config/model.hpp"

#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <cstdio>
#include <optional>

namespace gate {

using audit_actor = caf::typed_actor<caf::reacts_to<audit_event>>;

// Null when no audit section is configured: no events are emitted at all.
audit_actor spawn_audit(caf::actor_system& sys, const std::optional<config::audit>& cfg,
                        std::FILE* out = stdout);

} // namespace gate

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::audit_event)
