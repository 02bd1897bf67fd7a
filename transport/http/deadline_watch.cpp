#include "transport/http/deadline_watch.hpp"

#include <boost/asio/execution/context.hpp>
#include <boost/asio/query.hpp>

namespace gate::transport {

namespace asio = boost::asio;

deadline_watch& deadline_watch::of(const asio::any_io_executor& ex) {
    auto& w = asio::use_service<deadline_watch>(asio::query(ex, asio::execution::context));
    if (!w.timer_)
        w.timer_.emplace(ex);
    return w;
}

deadline_watch::guard deadline_watch::arm(clock::time_point deadline,
                                          std::function<void()> on_expiry) {
    auto h = table_.arm(deadline, std::move(on_expiry));
    // The timer already fires before this deadline is more than `resolution` late: left as
    // it is (the common case: deadlines armed later lie later).
    if (!timer_at_ || *timer_at_ > deadline + resolution)
        schedule(deadline);
    return {this, h};
}

void deadline_watch::schedule(clock::time_point at) {
    if (!timer_)
        return; // shut down
    timer_at_ = at;
    timer_->expires_at(at);
    timer_->async_wait([this](boost::system::error_code ec) {
        if (!ec)
            fire();
    });
}

void deadline_watch::fire() {
    timer_at_.reset();
    auto now = clock::now();
    table_.expire(now);
    if (auto next = table_.next(); next && !timer_at_)
        schedule(std::max(*next, now + resolution));
}

void deadline_watch::shutdown() {
    timer_.reset();
    timer_at_.reset();
}

} // namespace gate::transport
