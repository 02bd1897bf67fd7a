// The delivery worker: claims due deliveries from the store (at most `concurrency` attempts
// at once), makes each attempt, and records what the retry schedule decides. It wakes at
// once when an event is ingested or dead letters are retried, and every `poll` for retries
// falling due. A crash between claim and record loses nothing: the claim's lease lapses and
// the delivery is attempted again (at least once; receivers deduplicate by Gate-Delivery).
#pragma once

#include "hooks/hooks_metrics.hpp"
#include "hooks/model.hpp"
#include "hooks/sender.hpp"
#include "hooks/settings.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <caf/actor.hpp>
#include <random>
#include <vector>

namespace gate::hooks {

class dispatcher {
public:
    dispatcher(boost::asio::io_context& io, caf::actor store, const delivery_settings& settings,
               hooks_metrics& metrics);

    void start();
    void wake();
    void stop();

    // The test action: one signed attempt now with a test payload, outside the queue and
    // its history.
    boost::asio::awaitable<send_result> test(const webhook& w);

private:
    boost::asio::awaitable<void> loop();
    boost::asio::awaitable<void> attempt(due_delivery due);

    boost::asio::io_context& io_;
    caf::actor store_;
    delivery_settings settings_;
    hooks_metrics& metrics_;
    sender sender_;
    boost::asio::steady_timer wake_;
    bool woken_ = false;
    bool stopped_ = false;
    std::size_t in_flight_ = 0;
    // Outcomes waiting to be written, in one transaction per batch: a store job per attempt
    // made the store's thread the bottleneck of a backlog.
    std::vector<attempt_record> outcomes_;
    bool flushing_ = false;
    boost::asio::awaitable<void> flush_outcomes();
    std::mt19937_64 jitter_{std::random_device{}()};
};

} // namespace gate::hooks
