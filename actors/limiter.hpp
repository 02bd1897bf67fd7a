// The limiter actor: the global request window (server.rateLimit.requestsPerMinute), a
// sliding window over every JSON-RPC request on the MCP endpoint. The io thread does not ask
// per request: it asks for a batch of slots (sliding_window::take_batch) and spends them
// itself (slot_lease), so a limit high enough never to trip costs one message per 64
// requests, and a low one is exact. A batch of 0 slots is the refusal, with the wait until
// one would fit. Per-principal buckets join it, keyed by principal, once principals exist
// (the security issue); until then server.rateLimit.perPrincipalPerMinute is refused.
#pragma once

#include "actors/reply.hpp"
#include "actors/sliding_window.hpp"

#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>

namespace gate {

struct limit_ask {
    reply_to<sliding_window::batch> reply;
};

using limiter_actor = caf::typed_actor<caf::reacts_to<limit_ask>>;

limiter_actor spawn_limiter(caf::actor_system& sys, std::int64_t requests_per_minute);

} // namespace gate

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::limit_ask)
