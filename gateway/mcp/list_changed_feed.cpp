#include "gateway/mcp/list_changed_feed.hpp"

#include <utility>

namespace gate::transport {

list_changed_feed::list_changed_feed(boost::asio::any_io_executor ex, audience& to,
                                     std::chrono::steady_clock::duration interval)
    : ex_(std::move(ex)), to_(to), interval_(interval) {}

void list_changed_feed::announce(std::string method) {
    if (!pending_.insert(std::move(method)).second || armed_)
        return;
    armed_ = true;
    if (!timer_)
        timer_.emplace(ex_);
    timer_->expires_after(interval_);
    timer_->async_wait([this](const boost::system::error_code&) {
        armed_ = false;
        for (const auto& m : std::exchange(pending_, {}))
            to_.broadcast(boost::json::object{{"jsonrpc", "2.0"}, {"method", m}});
    });
}

} // namespace gate::transport
