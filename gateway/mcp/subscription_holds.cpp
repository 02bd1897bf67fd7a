#include "gateway/mcp/subscription_holds.hpp"

namespace gate::gateway {

namespace asio = boost::asio;

asio::awaitable<subscription_holds::held>
subscription_holds::hold(const std::string& holder, const std::shared_ptr<upstream_client>& owner,
                         const std::string& uri) {
    std::pair<std::string, std::string> key{owner->config().id, uri};
    if (held_[holder].contains(key))
        co_return held{}; // a repeated subscribe is one subscription
    if (auto refused = co_await owner->streams().hold_subscription(uri))
        co_return held{std::move(refused), false};
    if (!held_[holder].emplace(key, owner).second) {
        owner->streams().release_subscription(uri); // a concurrent subscribe of the same holder won
        co_return held{};
    }
    co_return held{std::nullopt, true};
}

bool subscription_holds::release(const std::string& holder, const std::string& upstream,
                                 const std::string& uri) {
    auto it = held_.find(holder);
    if (it == held_.end())
        return false;
    auto entry = it->second.find({upstream, uri});
    if (entry == it->second.end())
        return false;
    // The client that held it may have been replaced by a reload: the new one never held it.
    if (auto owner = entry->second.lock())
        owner->streams().release_subscription(uri);
    it->second.erase(entry);
    if (it->second.empty())
        held_.erase(it);
    return true;
}

void subscription_holds::release_all(const std::string& holder) {
    auto it = held_.find(holder);
    if (it == held_.end())
        return;
    for (const auto& [key, owner] : std::exchange(it->second, {}))
        if (auto o = owner.lock())
            o->streams().release_subscription(key.second);
    held_.erase(it);
}

bool subscription_holds::holds(const std::string& holder, const std::string& upstream,
                               const std::string& uri) const {
    auto it = held_.find(holder);
    return it != held_.end() && it->second.contains({upstream, uri});
}

} // namespace gate::gateway
