// Stage 3, the rate limits (s3_global_limit.cpp): what it asks of the gateway (a batch of a
// window's slots, from the fleet's store or this instance's limiter actor) and the leases it
// spends them from, which the gateway holds so a reload can drop what the old limits granted.
#pragma once

#include "actors/guards/sliding_window.hpp"
#include "actors/guards/slot_demand.hpp"
#include "actors/guards/slot_lease.hpp"
#include "gateway/pipeline/lease_table.hpp"
#include "gateway/pipeline/stage.hpp"
#include "transport/io/ask_flight.hpp"

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gate::gateway::pipeline {

// The windows a request is counted in, in the order they are checked.
enum class limit_window : std::uint8_t {
    global,    // server.rateLimit.requestsPerMinute, over every request
    tenant,    // tenants[].rateLimit, shared by the tenant's principals
    principal, // server.rateLimit.perPrincipalPerMinute, each authenticated caller's own
};

class global_limit_services {
public:
    using batch = actors::sliding_window::batch;
    // Whether the limiter actor runs now (between a crash and its respawn it does not, and
    // every request goes through: gate's fault is not the client's).
    virtual bool limiting() const = 0;
    // A batch of the fleet's window `scope` ("global", "tenant:<id>", "principal:<key>") from
    // its shared store; nullopt without a store, or when it does not answer.
    virtual boost::asio::awaitable<std::optional<batch>>
    take_shared(const std::string& scope, std::int64_t per_minute,
                const actors::slot_demand& demand) = 0;
    // A batch of this instance's window from the limiter (`key`: the tenant's id or the
    // principal's key; empty for the global one); nullopt when it does not answer.
    virtual boost::asio::awaitable<std::optional<batch>>
    take_local(limit_window window, const std::string& key, std::int64_t per_minute,
               const actors::slot_demand& demand) = 0;

protected:
    ~global_limit_services() = default;
};

// The slots the limiter granted this io thread, per window, each window with one ask in
// flight at a time.
struct limit_leases {
    actors::slot_lease global;
    transport::ask_flight global_flight;
    lease_table principals, tenants;
    lease_table tools; // stage 6's tool limits (s6_tool_limits.hpp), by window
    // Slots granted under the old limits go (a reload): the new ones hold from the next
    // request. Asks in flight stay, and what they bring is spent as usual.
    void revoke_all() {
        global = actors::slot_lease{};
        principals.revoke_all();
        tenants.revoke_all();
        tools.revoke_all();
    }
};

std::unique_ptr<stage> make_global_limit(global_limit_services& limiter, limit_leases& leases);

} // namespace gate::gateway::pipeline
