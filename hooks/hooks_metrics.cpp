#include "hooks/hooks_metrics.hpp"

#include <prometheus/text_serializer.h>
#include <sstream>

namespace gate::hooks {

hooks_metrics::hooks_metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      deliveries_(prometheus::BuildCounter()
                      .Name("gate_hooks_deliveries_total")
                      .Help("Delivery attempts by outcome: succeeded, retry (scheduled again), "
                            "dead (to the dead-letter queue), gone (410: webhook disabled)")
                      .Register(*registry_)),
      attempts_(prometheus::BuildCounter()
                    .Name("gate_hooks_attempts_total")
                    .Help("Delivery attempts made")
                    .Register(*registry_)
                    .Add({})),
      events_(prometheus::BuildCounter()
                  .Name("gate_hooks_events_total")
                  .Help("Events ingested")
                  .Register(*registry_)
                  .Add({})),
      latency_(prometheus::BuildHistogram()
                   .Name("gate_hooks_delivery_seconds")
                   .Help("Duration of one delivery attempt, connect to answer")
                   .Register(*registry_)
                   .Add({}, prometheus::Histogram::BucketBoundaries{0.005, 0.01, 0.025, 0.05, 0.1,
                                                                    0.25, 0.5, 1, 2.5, 5, 10, 30})),
      queued_(prometheus::BuildGauge()
                  .Name("gate_hooks_queue_depth")
                  .Help("Deliveries waiting for an attempt or in one")
                  .Register(*registry_)
                  .Add({})),
      dead_(prometheus::BuildGauge()
                .Name("gate_hooks_dead_letters")
                .Help("Deliveries in the dead-letter queue")
                .Register(*registry_)
                .Add({})),
      pruned_(prometheus::BuildCounter()
                  .Name("gate_hooks_retention_deleted_total")
                  .Help("Rows the retention sweeps deleted: finished deliveries, the attempts "
                        "of their logs, and events no delivery referred to")
                  .Register(*registry_)) {
    for (auto o : {"succeeded", "retry", "dead", "gone"})
        deliveries_.Add({{"outcome", o}});
    for (auto k : {"deliveries", "attempts", "events"})
        pruned_.Add({{"kind", k}});
}

void hooks_metrics::attempt(std::string_view outcome, double seconds) {
    deliveries_.Add({{"outcome", std::string(outcome)}}).Increment();
    attempts_.Increment();
    latency_.Observe(seconds);
}

void hooks_metrics::ingested(std::size_t) {
    events_.Increment();
}

void hooks_metrics::depths(std::int64_t queued, std::int64_t dead) {
    queued_.Set(static_cast<double>(queued));
    dead_.Set(static_cast<double>(dead));
}

void hooks_metrics::pruned(std::size_t deliveries, std::size_t attempts, std::size_t events) {
    pruned_.Add({{"kind", "deliveries"}}).Increment(static_cast<double>(deliveries));
    pruned_.Add({{"kind", "attempts"}}).Increment(static_cast<double>(attempts));
    pruned_.Add({{"kind", "events"}}).Increment(static_cast<double>(events));
}

std::string hooks_metrics::serialize() const {
    std::ostringstream out;
    prometheus::TextSerializer().Serialize(out, registry_->Collect());
    return out.str();
}

} // namespace gate::hooks
