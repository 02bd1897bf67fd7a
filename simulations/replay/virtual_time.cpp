#include "simulations/replay/virtual_time.hpp"

#include <algorithm>
#include <caf/detail/test_actor_clock.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace gate::sim {

namespace {

struct state {
    caf::scheduler::test_coordinator* sched = nullptr;
    std::int64_t wall_offset_ns = 0; // wall = monotonic + offset
    time_jumps jumped;
    std::function<bool()> outside; // owes an answer in real time
};
state g;

std::int64_t mono_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               g.sched->clock().current_time.time_since_epoch())
        .count();
}

void fill(timespec* ts, std::int64_t ns) {
    ts->tv_sec = static_cast<time_t>(ns / 1000000000);
    ts->tv_nsec = static_cast<long>(ns % 1000000000);
}

int system_epoll_wait(int fd, epoll_event* events, int max, int timeout) {
    return static_cast<int>(syscall(SYS_epoll_pwait, fd, events, max, timeout, nullptr, 8));
}

// Nothing is ready on the sockets at this instant. The actors run first; what they post to
// the io_context is work at this same instant. With none, a real answer owed from outside is
// waited for in real time. Only then does time jump, to the earliest thing waiting (Asio's
// next timer is `timeout_ms` away; CAF's is on its clock). Returns the events to report.
int idle(int fd, epoll_event* events, int max, int timeout_ms) {
    if (g.sched->run() > 0)
        return system_epoll_wait(fd, events, max, 0);
    if (g.outside && g.outside())
        if (int got = system_epoll_wait(fd, events, max, 1000); got != 0)
            return got;
    auto& clock = g.sched->clock();
    auto step = std::chrono::nanoseconds(std::chrono::milliseconds(timeout_ms));
    if (clock.has_pending_timeout())
        step = std::min<std::chrono::nanoseconds>(
            step, std::max<std::chrono::nanoseconds>(
                      std::chrono::nanoseconds(0), clock.schedule().begin()->first - clock.now()));
    ++g.jumped.count;
    g.jumped.total += step;
    static const bool trace = std::getenv("GATE_REPLAY_TRACE_TIME") != nullptr;
    if (trace)
        std::fprintf(stderr, "virtual time: +%.3f ms (asio's next timer in %d ms)\n",
                     std::chrono::duration<double, std::milli>(step).count(), timeout_ms);
    clock.advance_time(step); // due CAF timeouts become messages
    g.sched->run();
    return system_epoll_wait(fd, events, max, 0);
}

} // namespace

void start_virtual_time(caf::scheduler::test_coordinator& sched,
                        std::chrono::system_clock::time_point wall_origin) {
    sched.clock().advance_time(std::chrono::hours(24));
    g.sched = &sched;
    g.wall_offset_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(wall_origin.time_since_epoch())
            .count() -
        mono_ns();
}

void stop_virtual_time() {
    g.sched = nullptr;
    g.outside = nullptr;
}

void wait_for_outside(std::function<bool()> pending) {
    g.outside = std::move(pending);
}

std::chrono::steady_clock::time_point virtual_now() {
    return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(mono_ns()));
}

std::chrono::system_clock::time_point virtual_wall() {
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::nanoseconds(mono_ns() + g.wall_offset_ns)));
}

time_jumps jumps() {
    return g.jumped;
}

} // namespace gate::sim

// The system interface, taken over (see the header). These definitions in the program take
// precedence over the C library's for every caller in the process, shared libraries included.
extern "C" {

int clock_gettime(clockid_t id, timespec* ts) {
    using gate::sim::g;
    if (g.sched) {
        switch (id) {
        case CLOCK_MONOTONIC:
        case CLOCK_MONOTONIC_RAW:
        case CLOCK_MONOTONIC_COARSE:
        case CLOCK_BOOTTIME:
            gate::sim::fill(ts, gate::sim::mono_ns());
            return 0;
        case CLOCK_REALTIME:
        case CLOCK_REALTIME_COARSE:
            gate::sim::fill(ts, gate::sim::mono_ns() + g.wall_offset_ns);
            return 0;
        default:
            break; // CPU time clocks stay real
        }
    }
    return static_cast<int>(syscall(SYS_clock_gettime, id, ts));
}

int timerfd_create(int clockid, int flags) {
    if (gate::sim::g.sched) {
        errno = ENOSYS; // Asio falls back to checking its timers on every wait
        return -1;
    }
    return static_cast<int>(syscall(SYS_timerfd_create, clockid, flags));
}

int epoll_wait(int fd, epoll_event* events, int max, int timeout) {
    int n = gate::sim::system_epoll_wait(fd, events, max, 0);
    if (n != 0 || timeout == 0)
        return n;
    if (!gate::sim::g.sched)
        return gate::sim::system_epoll_wait(fd, events, max, timeout);
    return gate::sim::idle(fd, events, max, timeout < 0 ? 300000 : timeout);
}

} // extern "C"
