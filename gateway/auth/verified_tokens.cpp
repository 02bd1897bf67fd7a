#include "gateway/auth/verified_tokens.hpp"

#include <algorithm>

namespace gate::gateway {

policy::caller_ref verified_tokens::find(std::string_view token, std::int64_t now) {
    auto hit = entries_.find(token);
    if (hit == entries_.end())
        return nullptr;
    if (now < hit->second.valid_until)
        return hit->second.who;
    entries_.erase(hit);
    return nullptr;
}

void verified_tokens::remember(std::string_view token, policy::caller_ref who, std::size_t issuer,
                               std::string_view kid, std::int64_t now, std::int64_t until) {
    until = std::min(until, now + ttl_seconds);
    if (until <= now)
        return; // nothing to remember: the next call verifies it anyway
    if (entries_.size() >= max_entries)
        entries_.clear();
    entries_.insert_or_assign(std::string(token),
                              entry{std::move(who), until, issuer, std::string(kid)});
}

std::size_t verified_tokens::forget(std::size_t issuer, std::span<const std::string> kids) {
    if (kids.empty())
        return 0;
    // A walk over at most max_entries, once per refetch that withdraws a key: rare, so the
    // memory keeps no index by key.
    return std::erase_if(entries_, [&](const auto& e) {
        const auto& v = e.second;
        return v.issuer == issuer &&
               (v.kid.empty() || std::find(kids.begin(), kids.end(), v.kid) != kids.end());
    });
}

} // namespace gate::gateway
