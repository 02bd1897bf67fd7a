// gate-hooks' Prometheus series (docs/webhooks.md, "Metrics").
#pragma once

#include <memory>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <string>
#include <string_view>

namespace gate::hooks {

class hooks_metrics {
public:
    hooks_metrics();
    // One attempt ended: outcome succeeded, retry, dead or gone; its duration.
    void attempt(std::string_view outcome, double seconds);
    void ingested(std::size_t deliveries);
    void depths(std::int64_t queued, std::int64_t dead);
    // What a retention sweep deleted.
    void pruned(std::size_t deliveries, std::size_t attempts, std::size_t events);
    std::string serialize() const;

private:
    std::shared_ptr<prometheus::Registry> registry_;
    prometheus::Family<prometheus::Counter>& deliveries_;
    prometheus::Counter& attempts_;
    prometheus::Counter& events_;
    prometheus::Histogram& latency_;
    prometheus::Gauge& queued_;
    prometheus::Gauge& dead_;
    prometheus::Family<prometheus::Counter>& pruned_;
};

} // namespace gate::hooks
