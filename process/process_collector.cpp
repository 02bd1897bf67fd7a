#include "process/process_collector.hpp"

#include <dirent.h>
#include <fstream>
#include <prometheus/text_serializer.h>
#include <sstream>
#include <string>
#include <unistd.h>

namespace gate::process {

namespace {

prometheus::MetricFamily gauge(std::string name, std::string help, double value,
                               prometheus::MetricType type = prometheus::MetricType::Gauge) {
    prometheus::ClientMetric m;
    if (type == prometheus::MetricType::Counter)
        m.counter.value = value;
    else
        m.gauge.value = value;
    return {std::move(name), std::move(help), type, {m}};
}

double open_fds() {
    double n = 0;
    if (DIR* d = opendir("/proc/self/fd")) {
        while (readdir(d))
            ++n;
        closedir(d);
        n -= 3; // ".", ".." and the descriptor of this listing
    }
    return n;
}

} // namespace

std::vector<prometheus::MetricFamily> collect_process_metrics() {
    std::vector<prometheus::MetricFamily> out;
    std::ifstream stat("/proc/self/stat");
    std::string content((std::istreambuf_iterator<char>(stat)), {});
    // Fields after the command name, which is parenthesised and may contain spaces.
    auto close = content.rfind(')');
    if (close == std::string::npos)
        return out;
    std::istringstream rest(content.substr(close + 2));
    std::vector<std::string> f;
    for (std::string tok; rest >> tok;)
        f.push_back(tok);
    if (f.size() < 22)
        return out;
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    double utime = std::stod(f[11]), stime = std::stod(f[12]);
    double start_ticks = std::stod(f[19]);
    double vsize = std::stod(f[20]), rss_pages = std::stod(f[21]);
    double boot = 0;
    std::ifstream st("/proc/stat");
    for (std::string line; std::getline(st, line);)
        if (line.starts_with("btime "))
            boot = std::stod(line.substr(6));
    out.push_back(gauge("process_cpu_seconds_total", "Total user and system CPU time in seconds",
                        (utime + stime) / ticks, prometheus::MetricType::Counter));
    out.push_back(
        gauge("process_resident_memory_bytes", "Resident memory size in bytes", rss_pages * page));
    out.push_back(gauge("process_virtual_memory_bytes", "Virtual memory size in bytes", vsize));
    out.push_back(gauge("process_start_time_seconds",
                        "Start time of the process since the epoch in seconds",
                        boot + start_ticks / ticks));
    out.push_back(gauge("process_open_fds", "Number of open file descriptors", open_fds()));
    return out;
}

std::string exposition_with_process_metrics(std::vector<prometheus::MetricFamily> families) {
    auto process = collect_process_metrics();
    families.insert(families.end(), process.begin(), process.end());
    return prometheus::TextSerializer().Serialize(families);
}

} // namespace gate::process
