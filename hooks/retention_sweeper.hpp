// Runs the retention sweep (retention.hpp) at start and then every `sweepIntervalMs`, each
// batch a job of its own on the store's thread; counts what it deleted in /metrics and logs
// a line for each sweep that deleted something. With several instances on one PostgreSQL
// each sweeps; their batches skip the rows another holds.
#pragma once

#include "hooks/hooks_metrics.hpp"
#include "hooks/settings.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <caf/actor.hpp>

namespace gate::hooks {

class retention_sweeper {
public:
    retention_sweeper(boost::asio::io_context& io, caf::actor store,
                      const retention_settings& settings, hooks_metrics& metrics);

    void start();
    void stop();

private:
    boost::asio::awaitable<void> loop();
    boost::asio::awaitable<void> sweep();

    boost::asio::io_context& io_;
    caf::actor store_;
    retention_settings settings_;
    hooks_metrics& metrics_;
    boost::asio::steady_timer timer_;
    bool stopped_ = false;
};

} // namespace gate::hooks
