// How an io thread beyond the first makes its client of an upstream entry at the entry's first
// use there (docs/io-threads.md), so that every client made is one a reload retires and stop
// closes: a request that loaded a view a reload has replaced since gets the current view's
// client of the same entry; one whose entry the reload removed gets a client retired at once;
// after stop, one made is closed.
#pragma once

#include "gateway/upstream/live_federation.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <cstddef>
#include <functional>
#include <memory>

namespace gate::gateway::program {

class first_use_clients {
public:
    // A client made here is wired as a reload wires the view's (its traffic heard, the log
    // levels kept for its thread's sessions told).
    using wiring = std::function<void(const std::shared_ptr<upstream_client>&)>;

    first_use_clients(boost::asio::any_io_executor ex, const view_source& live, wiring wire)
        : ex_(std::move(ex)), live_(live), wire_(std::move(wire)) {}

    // The client of entry `i` of view `v`, which has none on this thread yet (the view's maker).
    std::shared_ptr<upstream_client> make(const federation_view& v, std::size_t i);
    // The thread stopped and closed its clients.
    void stop() { stopping_ = true; }

private:
    boost::asio::any_io_executor ex_;
    const view_source& live_;
    wiring wire_;
    bool stopping_ = false;
};

} // namespace gate::gateway::program
