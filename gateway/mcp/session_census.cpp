#include "gateway/mcp/session_census.hpp"

#include <algorithm>

namespace gate::gateway {

std::optional<share_reason> session_census::claim(const std::string& holder,
                                                  const session_limits& limits) {
    std::lock_guard held(lock_);
    auto it = held_.find(holder);
    if (it != held_.end() && it->second >= limits.caller_share())
        return share_reason::caller_share;
    if (total_ >= limits.table)
        return share_reason::table_full;
    ++total_;
    ++held_[holder];
    return std::nullopt;
}

bool session_census::hand_over(const std::string& from, const std::string& to,
                               const session_limits& limits) {
    std::lock_guard held(lock_);
    if (from == to)
        return true;
    auto it = held_.find(to);
    if (it != held_.end() && it->second >= limits.caller_share())
        return false;
    ++held_[to];
    if (auto gone = held_.find(from); gone != held_.end() && --gone->second == 0)
        held_.erase(gone);
    return true;
}

void session_census::release(const std::string& holder) {
    std::lock_guard held(lock_);
    auto it = held_.find(holder);
    if (it == held_.end())
        return;
    --total_;
    if (--it->second == 0)
        held_.erase(it);
}

std::vector<std::string> session_census::above_fair_share(std::vector<std::string> holders,
                                                          const std::string& newcomer,
                                                          const session_limits& limits) const {
    std::lock_guard held(lock_);
    auto count = [this](const std::string& h) {
        auto it = held_.find(h);
        return it == held_.end() ? std::size_t{0} : it->second;
    };
    std::size_t fair = std::max<std::size_t>(
        1, limits.table / (held_.size() + (held_.contains(newcomer) ? 0 : 1)));
    std::erase_if(holders, [&](const std::string& h) { return count(h) <= fair; });
    std::sort(holders.begin(), holders.end(), [&](const std::string& a, const std::string& b) {
        auto ca = count(a), cb = count(b);
        return ca != cb ? ca > cb : a < b;
    });
    return holders;
}

std::size_t session_census::size() const {
    std::lock_guard held(lock_);
    return total_;
}

std::size_t session_census::held_by(const std::string& holder) const {
    std::lock_guard held(lock_);
    auto it = held_.find(holder);
    return it == held_.end() ? 0 : it->second;
}

} // namespace gate::gateway
