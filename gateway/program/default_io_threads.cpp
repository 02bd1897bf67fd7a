#include "gateway/program/default_io_threads.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sched.h>
#include <sstream>
#include <string>
#include <thread>

namespace gate::gateway::program {

namespace {

// A whole number of at least 1 that is all of `text`.
bool read_positive(std::string_view text, unsigned long long& out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc{} && end == text.data() + text.size() && out > 0;
}

// The cores cpu.max's quota gives; 0 where it sets none.
std::size_t quota_cores(std::string_view cpu_max) {
    while (!cpu_max.empty() && (cpu_max.back() == '\n' || cpu_max.back() == ' '))
        cpu_max.remove_suffix(1);
    auto space = cpu_max.find(' ');
    if (space == std::string_view::npos)
        return 0;
    unsigned long long quota = 0, period = 0;
    if (!read_positive(cpu_max.substr(0, space), quota) ||
        !read_positive(cpu_max.substr(space + 1), period))
        return 0; // "max", or not a form cgroup v2 writes
    return static_cast<std::size_t>((quota + period - 1) / period);
}

std::string file_text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return in ? text.str() : std::string();
}

// This process's cgroup v2 directory ("0::/system.slice/gate.service"); empty under v1.
std::string own_cgroup() {
    std::istringstream lines(file_text("/proc/self/cgroup"));
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with("0::"))
            return line.substr(3);
    return {};
}

} // namespace

std::size_t io_threads_for(std::size_t cpus_allowed, std::string_view cpu_max, std::size_t most) {
    auto n = std::max<std::size_t>(cpus_allowed, 1);
    if (auto quota = quota_cores(cpu_max); quota > 0)
        n = std::min(n, quota);
    return std::clamp<std::size_t>(n, 1, std::max<std::size_t>(most, 1));
}

std::size_t default_io_threads(std::size_t most) {
    std::size_t cpus = std::thread::hardware_concurrency();
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        cpus = static_cast<std::size_t>(CPU_COUNT(&set));
    std::string cpu_max;
    if (auto group = own_cgroup(); !group.empty()) {
        // The smallest quota on the way up binds: a container's own, or its slice's.
        for (std::string dir = group;;) {
            auto text =
                file_text("/sys/fs/cgroup" + (dir == "/" ? std::string() : dir) + "/cpu.max");
            if (auto q = quota_cores(text); q > 0 && (cpu_max.empty() || q < quota_cores(cpu_max)))
                cpu_max = text;
            auto up = dir.rfind('/');
            if (up == std::string::npos || dir == "/" || dir.empty())
                break;
            dir.resize(up); // "/a/b" to "/a" to "" (the root)
        }
    }
    return io_threads_for(cpus, cpu_max, most);
}

} // namespace gate::gateway::program
