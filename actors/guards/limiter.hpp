// The limiter actor: the global request window (server.rateLimit.requestsPerMinute), a
// sliding window over every JSON-RPC request on the MCP endpoint, and one window per
// authenticated principal (perPrincipalPerMinute: actors/guards/principal_windows) and one shared
// by each tenant's principals (tenants[].rateLimit), and the tool limits' windows
// (upstreams[].toolLimits: actors/guards/tool_limits). The io thread does not ask per request: it
// asks for a batch of slots (sliding_window::take_batch) sized by what it expects to spend
// (slot_demand) and spends them itself (slot_lease), so a limit high enough never to trip costs
// about one message per window slot, and a low one is exact. A batch of 0 slots is the refusal,
// with the wait until one would fit.
#pragma once

#include "actors/guards/sliding_window.hpp"
#include "actors/message_inspection.hpp"
#include "actors/reply.hpp"

#include <boost/describe/class.hpp>
#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace gate::actors {

// Every limit travels with its ask, so a reload that changes one applies at once (the window
// starts afresh).
struct limit_ask {
    std::int64_t requests_per_minute = 0;
    slot_demand demand;
    reply_to<sliding_window::batch> reply;
};

// A batch of one principal's window (its principal_key).
struct principal_limit_ask {
    std::string principal;
    std::int64_t per_minute = 0;
    slot_demand demand;
    reply_to<sliding_window::batch> reply;
};

// A batch of one tenant's shared window; its limit travels with the ask, so a reload that
// changes it applies at once (the window starts afresh).
struct tenant_limit_ask {
    std::string tenant;
    std::int64_t requests_per_minute;
    slot_demand demand;
    reply_to<sliding_window::batch> reply;
};

// A batch of a tool limit's window (actors/guards/tool_limits): `scope` everyone's, or
// `principal`'s own in it when not empty; its limit travels with the ask.
struct tool_limit_ask {
    std::string scope, principal;
    std::int64_t per_minute = 0;
    slot_demand demand;
    reply_to<sliding_window::batch> reply;
};

using limiter_actor =
    caf::typed_actor<caf::reacts_to<limit_ask>, caf::reacts_to<principal_limit_ask>,
                     caf::reacts_to<tenant_limit_ask>, caf::reacts_to<tool_limit_ask>>;

// `max_principals`: the per-principal windows kept at most (actors/guards/principal_windows).
limiter_actor spawn_limiter(caf::actor_system& sys, std::size_t max_principals = 100'000);

BOOST_DESCRIBE_STRUCT(limit_ask, (), (requests_per_minute, demand, reply))
BOOST_DESCRIBE_STRUCT(principal_limit_ask, (), (principal, per_minute, demand, reply))
BOOST_DESCRIBE_STRUCT(tenant_limit_ask, (), (tenant, requests_per_minute, demand, reply))
BOOST_DESCRIBE_STRUCT(tool_limit_ask, (), (scope, principal, per_minute, demand, reply))

} // namespace gate::actors
