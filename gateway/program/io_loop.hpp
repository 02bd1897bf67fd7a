// How gate's io thread waits for work: Asio's blocking run(), or an adaptive spin that polls
// for a bounded time after the last piece of work before it blocks (docs/architecture.md,
// Threads; the measurements in docs/benchmarks.md).
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>

namespace gate::gateway::program {

// Runs `io` until it stops, as io.run() does. With a positive `spin`, after each turn that
// found work the thread keeps polling without blocking for up to `spin` before it sleeps in
// the reactor: under load the next message arrives within the spin and the thread is never
// put to sleep and woken again (on a virtual machine each wake-up of an idle core is an
// interrupt through the hypervisor); an idle gateway sleeps after one spin.
void run_io(boost::asio::io_context& io, std::chrono::microseconds spin);

} // namespace gate::gateway::program
