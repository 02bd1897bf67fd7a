#include "gateway/mcp/keeper_feed.hpp"

#include "actors/supervision/supervisor.hpp"

#include <caf/send.hpp>

namespace gate::gateway {

keeper_feed::keeper_feed(boost::asio::any_io_executor ex, keeper& to,
                         std::chrono::steady_clock::duration interval)
    : to_(to), gate_(std::move(ex), interval) {}

void keeper_feed::tell(actors::bridge_event e) {
    if (!to_.present())
        return;
    events_.add(std::move(e));
    arm();
}

void keeper_feed::call_sent(keeper_batch::open_call& call, const std::string& session,
                            const std::string& client_id, const std::string& upstream,
                            std::int64_t upstream_id) {
    events_.started(call, session, client_id, upstream, upstream_id);
    arm();
}

void keeper_feed::call_over(keeper_batch::open_call& call) {
    if (!call.running())
        return;
    events_.ended(call);
    arm();
}

void keeper_feed::arm() {
    gate_.arm([this] { flush(); });
}

void keeper_feed::flush() {
    if (events_.empty() || !to_.present())
        return;
    to_.send(events_.take());
}

bool current_keeper::present() const {
    return static_cast<bool>(actors_.load()->bridges);
}

void current_keeper::send(std::vector<actors::bridge_event> batch) {
    if (auto bridges = actors_.load()->bridges)
        caf::anon_send(bridges, actors::bridge_batch{std::move(batch)});
}

} // namespace gate::gateway
