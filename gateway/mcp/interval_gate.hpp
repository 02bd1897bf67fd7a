// The timer of a feed that gathers what happens within an interval and sends it as one
// message: armed by the first thing to send, it runs the feed's send one interval later,
// however many arms came meanwhile. Made on first use (a feed that never sends holds none).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <optional>
#include <utility>

namespace gate::gateway {

class interval_gate {
public:
    interval_gate(boost::asio::any_io_executor ex, std::chrono::steady_clock::duration interval)
        : ex_(std::move(ex)), interval_(interval) {}

    // `then` runs once the interval after the first arm; while armed, further arms do nothing.
    template <class Then> void arm(Then then) {
        if (armed_)
            return;
        armed_ = true;
        if (!timer_)
            timer_.emplace(ex_);
        timer_->expires_after(interval_);
        timer_->async_wait(
            [this, then = std::move(then)](const boost::system::error_code&) mutable {
                armed_ = false;
                then();
            });
    }
    bool armed() const { return armed_; }

private:
    boost::asio::any_io_executor ex_;
    std::chrono::steady_clock::duration interval_;
    bool armed_ = false;
    std::optional<boost::asio::steady_timer> timer_;
};

} // namespace gate::gateway
