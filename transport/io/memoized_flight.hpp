// A result that many callers want and that is costly to produce (a health probe): produced
// by one flight at a time, and reused for a while once it lands. Callers arriving during a
// flight wait for it instead of starting their own. Single io thread.
#pragma once

#include "transport/io/ask_flight.hpp"

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <optional>
#include <utility>

namespace gate::transport {

template <class T> class memoized_flight {
public:
    using clock = std::chrono::steady_clock;

    explicit memoized_flight(std::chrono::milliseconds reuse) : reuse_(reuse) {}

    // `produce` is called with no arguments and returns boost::asio::awaitable<T>.
    template <class Produce> boost::asio::awaitable<T> get(Produce produce) {
        for (;;) {
            if (last_ && clock::now() - last_->first < reuse_)
                co_return last_->second;
            // One flight at a time; a flight that failed (threw) leaves nothing, and a caller
            // that waited for it flies next.
            co_await flight_.run_or_wait([&]() -> boost::asio::awaitable<void> {
                T result = co_await produce();
                last_.emplace(clock::now(), std::move(result));
            });
            if (last_)
                co_return last_->second;
        }
    }

    void invalidate() { last_.reset(); }

private:
    std::chrono::milliseconds reuse_;
    std::optional<std::pair<clock::time_point, T>> last_;
    ask_flight flight_;
};

} // namespace gate::transport
