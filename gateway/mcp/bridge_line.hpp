// The io thread's line to the bridge keeper of the actor set the supervisor publishes (a
// respawn replaces it): events batched per interval (keeper_feed), questions asked after a
// flush, so the keeper answers knowing everything that happened before.
#pragma once

#include "gateway/mcp/bridge_events.hpp"
#include "gateway/mcp/keeper_feed.hpp"

#include <boost/asio/any_io_executor.hpp>

namespace gate::actors {
class actor_directory;
}

namespace gate::gateway {

class bridge_line final : public bridge_events {
public:
    bridge_line(boost::asio::any_io_executor ex, const actors::actor_directory& actors);
    bridge_line(const bridge_line&) = delete;
    bridge_line& operator=(const bridge_line&) = delete;

    // Anything else the keeper hears (a session's end, an upstream gone); dropped without one.
    void tell(actors::bridge_event e) { feed_.tell(std::move(e)); }

private:
    bool keeps_bridges() override { return feed_.present(); }
    void used(const std::string& session, const std::string& upstream) override;
    void call_sent(keeper_batch::open_call& open, const std::string& session,
                   const std::string& client_id, const std::string& upstream,
                   std::int64_t upstream_id) override {
        feed_.call_sent(open, session, client_id, upstream, upstream_id);
    }
    void call_over(keeper_batch::open_call& open) override { feed_.call_over(open); }
    void subscription_changed(const std::string& holder, const std::string& upstream,
                              const std::string& uri, bool subscribed) override;
    void listening(const std::string& session, bool open) override;
    boost::asio::awaitable<std::optional<actors::call_target>>
    cancelled_call(const std::string& session, const std::string& request_id) override;
    boost::asio::awaitable<std::optional<std::vector<std::string>>>
    subscribers(const std::string& upstream, const std::string& uri,
                std::optional<std::string> origin) override;

    const actors::actor_directory& actors_;
    current_keeper line_{actors_};
    keeper_feed feed_;
};

} // namespace gate::gateway
