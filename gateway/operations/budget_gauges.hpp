// Budgets as they stand, for the scrape (docs/operations.md, Metrics): each account's
// allowance, what this instance reserved of it and spent in the current period, and whether
// a reservation found nothing left. Reserved, not spent, is what a fleet sums: the store
// counts an allowance as used when an instance reserves it, so
// `sum by (scope, name) (gate_budget_reserved) / max by (scope, name) (gate_budget_allowance)`
// is the fleet's share used (high by at most 64 calls per instance).
#pragma once

#include <cstdint>
#include <map>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <string>
#include <utility>
#include <vector>

namespace gate::gateway {

struct budget_sample {
    std::string account; // "server", "upstream alpha", "tenant acme"
    std::int64_t allowance = 0, reserved = 0, spent = 0;
    bool exhausted = false;
};

class budget_gauges {
public:
    explicit budget_gauges(prometheus::Registry& registry);
    // Sets every account's series; those of accounts not sampled (a period ended, a reload
    // removed the budget) are removed.
    void show(const std::vector<budget_sample>& samples);

private:
    struct series {
        prometheus::Gauge *allowance, *reserved, *spent, *exhausted;
    };
    prometheus::Family<prometheus::Gauge>& allowance_;
    prometheus::Family<prometheus::Gauge>& reserved_;
    prometheus::Family<prometheus::Gauge>& spent_;
    prometheus::Family<prometheus::Gauge>& exhausted_;
    std::map<std::string, series> shown_;
};

} // namespace gate::gateway
