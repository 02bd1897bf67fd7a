// A result that many callers want and that is costly to produce (a health probe): produced
// by one flight at a time, and reused for a while once it lands. Callers arriving during a
// flight wait for it instead of starting their own. Single io thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>

namespace gate::transport {

template <class T> class memoized_flight {
public:
    using clock = std::chrono::steady_clock;

    explicit memoized_flight(std::chrono::milliseconds reuse) : reuse_(reuse) {}

    // `produce` is called with no arguments and returns boost::asio::awaitable<T>.
    template <class Produce> boost::asio::awaitable<T> get(Produce produce) {
        namespace asio = boost::asio;
        for (;;) {
            if (last_ && clock::now() - last_->first < reuse_)
                co_return last_->second;
            if (!in_flight_)
                break;
            auto waiter = in_flight_;
            boost::system::error_code ec;
            co_await waiter->async_wait(asio::redirect_error(asio::use_awaitable, ec));
            if (last_)
                co_return last_->second;
        }
        in_flight_ = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor,
                                                          asio::steady_timer::time_point::max());
        // Whatever happens, later callers must not wait on a flight that will not land.
        struct land {
            std::shared_ptr<asio::steady_timer>& flight;
            ~land() {
                if (auto done = std::move(flight))
                    done->cancel();
            }
        } landing{in_flight_};
        T result = co_await produce();
        last_.emplace(clock::now(), result);
        co_return result;
    }

    void invalidate() { last_.reset(); }

private:
    std::chrono::milliseconds reuse_;
    std::optional<std::pair<clock::time_point, T>> last_;
    std::shared_ptr<boost::asio::steady_timer> in_flight_;
};

} // namespace gate::transport
