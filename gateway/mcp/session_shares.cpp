#include "gateway/mcp/session_shares.hpp"

#include <algorithm>

namespace gate::gateway {

std::string_view share_reason_label(share_reason r) {
    return r == share_reason::caller_share ? "principal_share" : "table_full";
}

bool session_shares::rank_order::operator()(const holder_entry* a, const holder_entry* b) const {
    if (a->lru.size() != b->lru.size())
        return a->lru.size() > b->lru.size();
    if (a->lru.front().at != b->lru.front().at)
        return a->lru.front().at < b->lru.front().at;
    return std::less<const holder_entry*>{}(a, b);
}

template <class Change> void session_shares::rerank(holder_entry& h, Change change) {
    // The order reads the holder's count and oldest use: it leaves the set while they change
    // (its node reused, so no allocation on the request path).
    decltype(ranked_)::node_type node;
    if (!h.lru.empty())
        node = ranked_.extract(&h);
    change();
    if (h.lru.empty())
        return;
    if (node)
        ranked_.insert(std::move(node));
    else
        ranked_.insert(&h);
}

const session_shares::use* session_shares::lru_idle(const holder_entry& h,
                                                    const idle_test& idle) const {
    // Bounded by the holder's share: a caller whose sessions all stream is walked once.
    for (const auto& u : h.lru)
        if (idle(*u.id))
            return &u;
    return nullptr;
}

session_shares::verdict session_shares::evicting(const holder_entry& h, const use& victim,
                                                 share_reason why, time_point now) {
    verdict v;
    v.admit = true;
    v.evict = *victim.id;
    v.evicted_holder = h.name;
    v.evicted_idle = now - victim.at;
    v.reason = why;
    return v;
}

session_shares::verdict session_shares::admit(const std::string& holder,
                                              const session_limits& limits, time_point now,
                                              const idle_test& idle) const {
    auto found = holders_.find(holder);
    const holder_entry* own = found == holders_.end() ? nullptr : &found->second;
    std::size_t held = own ? own->lru.size() : 0;
    if (held >= limits.caller_share()) {
        if (const auto* u = lru_idle(*own, idle))
            return evicting(*own, *u, share_reason::caller_share, now);
        verdict refused;
        refused.reason = share_reason::caller_share;
        return refused;
    }
    if (sessions_.size() < limits.table) {
        verdict ok;
        ok.admit = true;
        return ok;
    }
    // The table is full: whoever holds the most above the fair share gives up an idle session.
    std::size_t fair = std::max<std::size_t>(1, limits.table / (holders_.size() + (own ? 0 : 1)));
    for (const auto* h : ranked_) {
        if (h->lru.size() <= fair)
            break; // and so is everyone after it
        if (const auto* u = lru_idle(*h, idle))
            return evicting(*h, *u, share_reason::table_full, now);
    }
    // Nobody above the fair share has an idle session: the caller may still give up its own.
    if (own && own->lru.size() <= fair)
        if (const auto* u = lru_idle(*own, idle))
            return evicting(*own, *u, share_reason::table_full, now);
    verdict refused;
    refused.reason = share_reason::table_full;
    return refused;
}

void session_shares::opened(const std::string& id, const std::string& holder, time_point now) {
    auto [at, inserted] = sessions_.try_emplace(id);
    if (!inserted)
        return;
    auto& h = holders_[holder];
    if (h.lru.empty())
        h.name = holder;
    rerank(h, [&] { h.lru.push_back(use{&at->first, now}); });
    at->second = session_entry{&h, std::prev(h.lru.end())};
}

void session_shares::used(const std::string& id, time_point now) {
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return;
    auto& e = it->second;
    auto& h = *e.holder;
    auto move_last = [&] {
        e.at->at = now;
        h.lru.splice(h.lru.end(), h.lru, e.at);
    };
    // Only a change of the holder's oldest use moves it in the ranking.
    if (e.at == h.lru.begin())
        rerank(h, move_last);
    else
        move_last();
}

std::string session_shares::closed(const std::string& id) {
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return {};
    auto& h = *it->second.holder;
    auto holder = h.name;
    rerank(h, [&] { h.lru.erase(it->second.at); });
    sessions_.erase(it);
    if (h.lru.empty())
        holders_.erase(h.name);
    return holder;
}

void session_shares::clear() {
    ranked_.clear();
    sessions_.clear();
    holders_.clear();
}

session_shares::verdict session_shares::first_idle_of(const std::vector<std::string>& order,
                                                      share_reason why, time_point now,
                                                      const idle_test& idle) const {
    for (const auto& name : order)
        if (auto it = holders_.find(name); it != holders_.end())
            if (const auto* u = lru_idle(it->second, idle))
                return evicting(it->second, *u, why, now);
    verdict refused;
    refused.reason = why;
    return refused;
}

std::vector<std::string> session_shares::holder_names() const {
    std::vector<std::string> out;
    out.reserve(holders_.size());
    for (const auto& [name, h] : holders_)
        out.push_back(name);
    return out;
}

std::size_t session_shares::held_by(const std::string& holder) const {
    auto it = holders_.find(holder);
    return it == holders_.end() ? 0 : it->second.lru.size();
}

} // namespace gate::gateway
