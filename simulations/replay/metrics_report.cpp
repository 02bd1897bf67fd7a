#include "simulations/replay/metrics_report.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>
#include <sstream>

namespace gate::sim {

namespace json = boost::json;

// The metrics of the simulation, without the process's own (memory, CPU, descriptors), which
// no two runs share.
std::string deterministic_metrics(const std::string& text) {
    std::istringstream in(text);
    std::string line, out;
    while (std::getline(in, line)) {
        auto name = line.starts_with("# ") ? line.substr(line.find(' ', 2) + 1) : line;
        if (name.starts_with("process_"))
            continue;
        out += line + '\n';
    }
    return out;
}

// What the upstream guards did, from the final metrics: each upstream's requests by outcome,
// its breaker's state and its endpoints in rotation.
json::object guards_of(const std::string& metrics) {
    json::object out;
    std::istringstream in(metrics);
    std::string line;
    auto label = [](const std::string& l, const std::string& name) {
        auto at = l.find(name + "=\"");
        if (at == std::string::npos)
            return std::string();
        at += name.size() + 2;
        return l.substr(at, l.find('"', at) - at);
    };
    auto value = [](const std::string& l) { return std::stod(l.substr(l.rfind(' ') + 1)); };
    auto entry = [&](const std::string& upstream) -> json::object& {
        auto& e = out[upstream];
        if (!e.is_object())
            e = json::object{{"requests", json::object{}}, {"endpointsHealthy", 0}};
        return e.as_object();
    };
    while (std::getline(in, line)) {
        if (line.starts_with("gate_upstream_requests_total{")) {
            auto& n =
                entry(label(line, "upstream"))["requests"].as_object()[label(line, "outcome")];
            n = (n.is_int64() ? n.as_int64() : 0) + static_cast<std::int64_t>(value(line));
        } else if (line.starts_with("gate_upstream_breaker_state{")) {
            auto& b = entry(label(line, "upstream"))["breakerState"];
            b = std::max<std::int64_t>(b.is_int64() ? b.as_int64() : 0,
                                       static_cast<std::int64_t>(value(line)));
        } else if (line.starts_with("gate_upstream_endpoint_healthy{") && value(line) > 0)
            entry(label(line, "upstream"))["endpointsHealthy"] =
                entry(label(line, "upstream"))["endpointsHealthy"].as_int64() + 1;
    }
    return out;
}

// What fell back to each instance's own state while the store did not answer, summed over
// the fleet.
json::object degraded_of(const std::string& metrics) {
    json::object out;
    std::istringstream in(metrics);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with("gate_shared_state_degraded_total{state=\""))
            continue;
        auto at = line.find('"') + 1;
        auto& n = out[line.substr(at, line.find('"', at) - at)];
        n = (n.is_int64() ? n.as_int64() : 0) +
            static_cast<std::int64_t>(std::stod(line.substr(line.rfind(' ') + 1)));
    }
    return out;
}

std::size_t lines_in(const std::string& path) {
    std::ifstream in(path);
    std::size_t n = 0;
    std::string line;
    while (std::getline(in, line))
        n += !line.empty();
    return n;
}

} // namespace gate::sim
