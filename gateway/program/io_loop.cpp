#include "gateway/program/io_loop.hpp"

#include <thread>

namespace gate::gateway::program {

void run_io(boost::asio::io_context& io, std::chrono::microseconds spin) {
    if (spin.count() <= 0) {
        io.run();
        return;
    }
    using clock = std::chrono::steady_clock;
    auto last_work = clock::now();
    while (!io.stopped()) {
        if (io.poll() > 0) {
            last_work = clock::now();
            continue;
        }
        if (io.stopped())
            break;
        if (clock::now() - last_work < spin) {
            std::this_thread::yield(); // an actor worker on the same core runs meanwhile
            continue;
        }
        // Nothing within the spin: block until the next handler, then spin again after it.
        if (io.run_one() == 0)
            break;
        last_work = clock::now();
    }
}

} // namespace gate::gateway::program
