// The standard process_* series of Prometheus client libraries, read from /proc/self.
#pragma once

#include <prometheus/metric_family.h>
#include <vector>

namespace gate::transport {

std::vector<prometheus::MetricFamily> collect_process_metrics();

} // namespace gate::transport
