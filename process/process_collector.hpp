// The standard process_* series of Prometheus client libraries, read from /proc/self.
#pragma once

#include <prometheus/metric_family.h>
#include <string>
#include <vector>

namespace gate::process {

std::vector<prometheus::MetricFamily> collect_process_metrics();

// The text exposition of `families` followed by the process_* series (what /metrics serves).
std::string exposition_with_process_metrics(std::vector<prometheus::MetricFamily> families);

} // namespace gate::process
