#include "gateway/accounts/login_table.hpp"

#include <algorithm>

namespace gate::gateway::accounts {

void login_table::expire(steady::time_point now) {
    for (auto it = by_id_.begin(); it != by_id_.end();) {
        if (it->second.expires_at > now) {
            ++it;
            continue;
        }
        id_of_state_.erase(it->second.state);
        it = by_id_.erase(it);
    }
}

pending_login* login_table::joinable(std::string_view principal, std::string_view upstream,
                                     steady::time_point now) {
    for (auto& [id, l] : by_id_)
        if (l.principal == principal && l.upstream == upstream && l.expires_at > now)
            return &l;
    return nullptr;
}

pending_login& login_table::open(pending_login login, steady::time_point now) {
    expire(now);
    auto oldest_where = [&](auto pred) {
        auto best = by_id_.end();
        for (auto it = by_id_.begin(); it != by_id_.end(); ++it)
            if (pred(it->second) &&
                (best == by_id_.end() || it->second.expires_at < best->second.expires_at))
                best = it;
        return best;
    };
    auto mine = [&](const pending_login& l) { return l.principal == login.principal; };
    auto count = static_cast<std::size_t>(
        std::count_if(by_id_.begin(), by_id_.end(), [&](const auto& e) { return mine(e.second); }));
    if (count >= per_principal)
        erase(oldest_where(mine)->first);
    if (by_id_.size() >= capacity)
        erase(oldest_where([](const pending_login&) { return true; })->first);
    login.expires_at = now + lifetime;
    auto id = login.id;
    return by_id_.insert_or_assign(std::move(id), std::move(login)).first->second;
}

pending_login* login_table::by_id(std::string_view id, steady::time_point now) {
    auto it = by_id_.find(std::string(id));
    if (it == by_id_.end() || it->second.expires_at <= now)
        return nullptr;
    return &it->second;
}

void login_table::arrived(pending_login& login, std::string state, std::string verifier,
                          std::string browser) {
    if (!login.state.empty())
        id_of_state_.erase(login.state);
    login.state = std::move(state);
    login.verifier = std::move(verifier);
    login.browser = std::move(browser);
    id_of_state_[login.state] = login.id;
}

std::optional<pending_login> login_table::take_by_state(std::string_view state,
                                                        steady::time_point now) {
    auto s = id_of_state_.find(std::string(state));
    if (s == id_of_state_.end())
        return std::nullopt;
    auto it = by_id_.find(s->second);
    id_of_state_.erase(s);
    if (it == by_id_.end())
        return std::nullopt;
    if (it->second.expires_at <= now) {
        by_id_.erase(it);
        return std::nullopt;
    }
    auto login = std::move(it->second);
    by_id_.erase(it);
    return login;
}

void login_table::erase(std::string_view id) {
    auto it = by_id_.find(std::string(id));
    if (it == by_id_.end())
        return;
    id_of_state_.erase(it->second.state);
    by_id_.erase(it);
}

} // namespace gate::gateway::accounts
