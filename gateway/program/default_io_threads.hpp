// How many io threads gate runs when the command line does not say (--io-threads): one per
// core it may run on, as haproxy's nbthread and Envoy's --concurrency default to
// (docs/io-threads.md, "The default"). The cores are those of its CPU affinity (taskset,
// systemd's CPUAffinity=, a container's cpuset), fewer where its cgroup's CPU quota (cgroup v2
// cpu.max: docker --cpus, systemd's CPUQuota=) gives it less time than that many cores: more
// threads than the quota's cores only take turns.
#pragma once

#include <cstddef>
#include <string_view>

namespace gate::gateway::program {

// From the count of CPUs in the affinity mask and the text of cpu.max ("max 100000", or
// "<quota> <period>" in microseconds; empty where there is none): at least 1, at most
// `most`. A quota rounds up (1.5 cores: 2 threads). Text that is not one of those forms is
// ignored, as no quota.
std::size_t io_threads_for(std::size_t cpus_allowed, std::string_view cpu_max, std::size_t most);

// The same read from this process: sched_getaffinity and /sys/fs/cgroup/cpu.max of its own
// cgroup (/proc/self/cgroup names it).
std::size_t default_io_threads(std::size_t most);

} // namespace gate::gateway::program
