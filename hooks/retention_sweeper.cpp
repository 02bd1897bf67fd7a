#include "hooks/retention_sweeper.hpp"

#include "hooks/retention.hpp"
#include "hooks/store_actor.hpp"
#include "protocol/utc_timestamp.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace gate::hooks {

namespace asio = boost::asio;

retention_sweeper::retention_sweeper(asio::io_context& io, caf::actor store,
                                     const retention_settings& settings, hooks_metrics& metrics)
    : io_(io), store_(std::move(store)), settings_(settings), metrics_(metrics), timer_(io) {}

void retention_sweeper::start() {
    asio::co_spawn(io_, loop(), asio::detached);
}

void retention_sweeper::stop() {
    stopped_ = true;
    timer_.cancel();
}

asio::awaitable<void> retention_sweeper::loop() {
    while (!stopped_) {
        co_await sweep();
        if (stopped_)
            break;
        timer_.expires_after(settings_.sweep_interval);
        boost::system::error_code ec; // cancellation is the stop
        co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

asio::awaitable<void> retention_sweeper::sweep() {
    // The sweep's state lives here; each batch runs on the store's thread in turn with the
    // store's other jobs, never two at once.
    auto state = std::make_shared<retention_sweep>(std::chrono::system_clock::now(), settings_);
    while (!stopped_) {
        auto more = co_await on_store(store_, [state](store& s) { return state->step(s); });
        if (!more) {
            spdlog::error("retention: a sweep stopped at a store failure (logged above); the "
                          "next one, in {} ms, deletes what it left",
                          settings_.sweep_interval.count());
            break;
        }
        if (!*more)
            break;
    }
    const auto& t = state->totals();
    metrics_.pruned(t.deliveries, t.attempts, t.events);
    if (t.deleted_any())
        spdlog::info("retention: deleted {} deliveries finished before {} (retention.days {}), "
                     "{} attempts of theirs and {} events, in {} batches",
                     t.deliveries, protocol::utc_timestamp(state->cutoff()), settings_.days,
                     t.attempts, t.events, t.batches);
}

} // namespace gate::hooks
