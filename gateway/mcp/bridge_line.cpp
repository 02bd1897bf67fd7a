#include "gateway/mcp/bridge_line.hpp"

#include "actors/bridge.hpp"
#include "actors/supervision/supervisor.hpp"

namespace gate::gateway {

namespace asio = boost::asio;

bridge_line::bridge_line(asio::any_io_executor ex, const actors::actor_directory& actors)
    : actors_(actors), feed_(std::move(ex), line_) {}

void bridge_line::used(const std::string& session, const std::string& upstream) {
    feed_.tell(actors::bridge_used{session, upstream});
}

void bridge_line::subscription_changed(const std::string& holder, const std::string& upstream,
                                       const std::string& uri, bool subscribed) {
    feed_.tell(actors::bridge_subscription{holder, upstream, uri, subscribed});
}

void bridge_line::listening(const std::string& session, bool open) {
    feed_.tell(actors::bridge_listening{session, open});
}

asio::awaitable<std::optional<actors::call_target>>
bridge_line::cancelled_call(const std::string& session, const std::string& request_id) {
    if (!feed_.present())
        co_return std::nullopt;
    feed_.flush();
    auto found = co_await actors::ask<std::optional<actors::call_target>>(
        actors_.load()->bridges, [&](actors::reply_to<std::optional<actors::call_target>> r) {
            return actors::bridge_cancel_lookup{session, request_id, std::move(r)};
        });
    if (!found)
        co_return std::nullopt;
    co_return std::move(*found);
}

asio::awaitable<std::optional<std::vector<std::string>>>
bridge_line::subscribers(const std::string& upstream, const std::string& uri,
                         std::optional<std::string> origin) {
    feed_.flush();
    return actors::ask<std::vector<std::string>>(
        actors_.load()->bridges, [upstream, uri, origin = std::move(origin)](
                                     actors::reply_to<std::vector<std::string>> r) mutable {
            return actors::bridge_updated{upstream, uri, std::move(origin), std::move(r)};
        });
}

} // namespace gate::gateway
