#include "actors/bridging/bridged_session.hpp"

#include <algorithm>

namespace gate::actors {

void bridged_session::touch(time_point now) {
    last_used_ = std::max(last_used_, now);
}

void bridged_session::call_started(const std::string& client_id, boost::json::value upstream_id,
                                   time_point now) {
    touch(now);
    calls_[client_id] = std::move(upstream_id);
}

void bridged_session::call_ended(const std::string& client_id, time_point now) {
    if (calls_.erase(client_id))
        touch(now);
}

std::optional<boost::json::value> bridged_session::upstream_id(const std::string& client_id) const {
    auto it = calls_.find(client_id);
    if (it == calls_.end())
        return std::nullopt;
    return it->second;
}

void bridged_session::subscribed(bool on) {
    if (on)
        ++subscriptions_;
    else if (subscriptions_ > 0)
        --subscriptions_;
}

void bridged_session::listening(bool open, time_point now) {
    if (open) {
        ++streams_;
        return;
    }
    if (streams_ == 0)
        return;
    if (--streams_ == 0)
        touch(now);
}

std::optional<bridged_session::time_point> bridged_session::idle_at(duration idle) const {
    // A call in flight (a long-running tool) keeps it however old its start is; so do
    // subscriptions (updates arrive on that session) and a listening client.
    if (!calls_.empty() || subscriptions_ > 0 || streams_ > 0)
        return std::nullopt;
    return last_used_ + idle;
}

} // namespace gate::actors
