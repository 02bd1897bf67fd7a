#include "gateway/mcp/list_changed_feed.hpp"

#include <utility>

namespace gate::gateway {

list_changed_feed::list_changed_feed(boost::asio::any_io_executor ex, audience& to,
                                     std::chrono::steady_clock::duration interval)
    : to_(to), gate_(std::move(ex), interval) {}

void list_changed_feed::announce(std::string method) {
    if (!pending_.insert(std::move(method)).second)
        return;
    gate_.arm([this] {
        for (const auto& m : std::exchange(pending_, {}))
            to_.broadcast(boost::json::object{{"jsonrpc", "2.0"}, {"method", m}});
    });
}

} // namespace gate::gateway
