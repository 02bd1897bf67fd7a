// Runs one coroutine per index concurrently on the current executor and waits for all.
// Used by federated lists and /health. Must run on the single io thread (results are
// collected without a strand). A task that throws yields nullopt instead of a result; it
// never leaves the caller waiting.
#pragma once

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <optional>
#include <vector>

namespace gate::transport {

template <class T, class F>
boost::asio::awaitable<std::vector<std::optional<T>>> fan_out(std::size_t n, F task) {
    namespace asio = boost::asio;
    auto ex = co_await asio::this_coro::executor;
    struct shared {
        std::vector<std::optional<T>> results;
        std::size_t remaining;
        asio::steady_timer done;
    };
    auto st = std::make_shared<shared>(
        shared{std::vector<std::optional<T>>(n), n,
               asio::steady_timer(ex, asio::steady_timer::time_point::max())});
    for (std::size_t i = 0; i < n; ++i)
        asio::co_spawn(
            ex,
            [st, i, task]() -> asio::awaitable<void> {
                try {
                    st->results[i] = co_await task(i);
                } catch (...) {
                    st->results[i].reset();
                }
                if (--st->remaining == 0)
                    st->done.cancel();
            },
            asio::detached);
    if (st->remaining > 0) {
        boost::system::error_code ec;
        co_await st->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    co_return std::move(st->results);
}

} // namespace gate::transport
