// What a replay reports from the gateway's final metrics (docs/simulations.md): the metrics
// themselves without the process's own, what each upstream's guards did, what fell back to
// local state while the shared store did not answer.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <string>

namespace gate::sim {

// The metrics of the simulation, without the process's own (memory, CPU, descriptors), which
// no two runs share.
std::string deterministic_metrics(const std::string& text);
// Each upstream's requests by outcome (summed over the instances), its breaker's state (the
// most open) and its endpoints in rotation (summed over the instances).
boost::json::object guards_of(const std::string& metrics);
// What fell back to each instance's own state while the store did not answer, summed.
boost::json::object degraded_of(const std::string& metrics);
// The non-empty lines of a file.
std::size_t lines_in(const std::string& path);

} // namespace gate::sim
