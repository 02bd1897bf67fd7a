// Stage 6, the upstream guards (s6_upstream_guards.cpp), and what it is given: the budgets it
// charges each admitted invocation to, the tool limits' windows, and the metrics that count a
// call the guards refused.
// The upstreams' own guards (breaker, rate limit) it reaches through the request's view.
#pragma once

#include "gateway/operations/metrics.hpp"
#include "gateway/pipeline/budget_charger.hpp"
#include "gateway/pipeline/s6_tool_limits.hpp"
#include "gateway/pipeline/stage.hpp"

#include <memory>

namespace gate::transport::pipeline {

struct upstream_guards_services {
    budget_charger& budgets;
    metrics& stats;
    // The tool limits' windows (s6_tool_limits.hpp) and the io thread's leases of them.
    tool_limit_services& tools;
    lease_table& tool_leases;
};

std::unique_ptr<stage> make_upstream_guards(upstream_guards_services services);

} // namespace gate::transport::pipeline
