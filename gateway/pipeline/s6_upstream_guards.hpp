// Stage 6, the upstream guards (s6_upstream_guards.cpp), and what it is given: the upstreams'
// own guards (breaker, rate limit), the budgets it charges each admitted invocation to, the
// tool limits' windows, and the metrics that count a call the guards refused.
#pragma once

#include "gateway/operations/metrics.hpp"
#include "gateway/pipeline/budget_charger.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/s6_tool_limits.hpp"
#include "gateway/pipeline/stage.hpp"
#include "gateway/upstream/upstream_guards.hpp"

#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <memory>
#include <optional>
#include <variant>

namespace gate::gateway::pipeline {

// The guards of the upstreams a request's view holds, by index (request_guards.hpp): an
// invocation admitted (a ticket its outcome settles) or refused (circuit_open,
// rate_limited).
class upstream_admission {
public:
    using ticket = gateway::upstream_guards::ticket;
    using admission = std::variant<ticket, upstream_failure>;
    // Decided from the lease, nearly always; nullopt where admit must ask the upstream's
    // actor (a new batch, the half-open probe).
    virtual std::optional<admission> admit_now(const request_context& ctx,
                                               std::size_t upstream) = 0;
    virtual boost::asio::awaitable<admission> admit(const request_context& ctx,
                                                    std::size_t upstream) = 0;
    // Whether the upstream speaks 2026-07-28 (a subscription there is held in gate's listen).
    virtual bool modern(const request_context& ctx, std::size_t upstream) const = 0;

protected:
    ~upstream_admission() = default;
};

struct upstream_guards_services {
    upstream_admission& upstreams;
    budget_charger& budgets;
    metrics& stats;
    // The tool limits' windows (s6_tool_limits.hpp) and the io thread's leases of them.
    tool_limit_services& tools;
    lease_table& tool_leases;
};

std::unique_ptr<stage> make_upstream_guards(upstream_guards_services services);

} // namespace gate::gateway::pipeline
