// One flight at a time for what many callers need (a batch of rate-limit slots from an actor,
// a health report): the first caller that needs it flies; callers arriving while it is out
// wait until it lands, then decide again from what it left. Without it, a burst of callers
// that all find a lease empty would each take a batch and drain the window, and be refused
// while the slots they took sit unspent. Single io thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <utility>

namespace gate::transport {

class ask_flight {
public:
    // Runs `ask()` (an awaitable<void>) and returns true when nothing is in flight; otherwise
    // waits for the flight to land (or fail: it throws out of its own caller) and returns
    // false. A flight must be bounded: actor asks are (actors/bridge.hpp, ask_timeout).
    template <class Ask> boost::asio::awaitable<bool> run_or_wait(Ask ask) {
        namespace asio = boost::asio;
        if (auto waiter = out_) {
            boost::system::error_code ec; // cancellation is the wake-up
            co_await waiter->async_wait(asio::redirect_error(asio::use_awaitable, ec));
            co_return false;
        }
        out_ = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor,
                                                    asio::steady_timer::time_point::max());
        struct land {
            std::shared_ptr<asio::steady_timer>& out;
            ~land() {
                if (auto done = std::move(out))
                    done->cancel();
            }
        } landing{out_};
        co_await ask();
        co_return true;
    }

private:
    std::shared_ptr<boost::asio::steady_timer> out_;
};

} // namespace gate::transport
