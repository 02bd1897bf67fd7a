// Virtual time for a whole simulation program (docs/simulations.md). The program's clocks and
// its one io_context's waits are taken over at the system interface, so everything in it
// (gate's io thread code, Asio and Beast timers, CAF's test_coordinator, spdlog) runs on one
// virtual clock without a line of gate changed for it:
//
// - clock_gettime answers the virtual time (CLOCK_MONOTONIC and the like: the test
//   coordinator's clock; CLOCK_REALTIME: a wall origin plus the time passed since the start);
// - timerfd_create fails, so Asio's reactor checks its timers itself on every wait;
// - epoll_wait with a timeout is where the simulation is idle at the current instant: it runs
//   the actors (test_coordinator) until none has work, and only when neither the sockets nor
//   the actors have anything to do does time jump, to the earliest of Asio's next timer and
//   CAF's next timeout.
//
// Everything runs on the calling thread: the io_context's run() is the simulation's loop.
// Only linked into simulation programs; outside start()..stop() every call goes to the system.
#pragma once

#include <caf/scheduler/test_coordinator.hpp>
#include <chrono>
#include <cstdint>
#include <functional>

namespace gate::sim {

// Starts virtual time: the monotonic clock reads the coordinator's clock (moved one day past
// its start first, so no code sees a monotonic clock near zero), the wall clock reads
// `wall_origin` now and moves with it. Call before the io_context is made.
void start_virtual_time(caf::scheduler::test_coordinator& sched,
                        std::chrono::system_clock::time_point wall_origin);
void stop_virtual_time();

// Something outside the simulation that answers in real time (a real redis-server): while
// `pending()` says it owes an answer, an idle simulation waits for it in real time (up to a
// second at a time) instead of moving virtual time.
void wait_for_outside(std::function<bool()> pending);

// The virtual monotonic and wall clocks.
std::chrono::steady_clock::time_point virtual_now();
std::chrono::system_clock::time_point virtual_wall();

// How many times time jumped, and how far in all (for the report).
struct time_jumps {
    std::uint64_t count = 0;
    std::chrono::nanoseconds total{0};
};
time_jumps jumps();

} // namespace gate::sim
