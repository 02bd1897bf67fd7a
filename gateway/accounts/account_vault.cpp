#include "gateway/accounts/account_vault.hpp"

#include "protocol/digest.hpp"

#include <algorithm>

namespace gate::gateway::accounts {

std::string account_vault::key_of(std::string_view upstream, std::string_view principal) {
    // An upstream id never holds a line break (config: its pattern), so the key is one pair.
    std::string key;
    key.reserve(upstream.size() + 1 + principal.size());
    key.append(upstream).append(1, '\n').append(principal);
    return key;
}

account_vault::lookup account_vault::find(std::string_view upstream, std::string_view principal,
                                          wall_clock::time_point now) const {
    std::lock_guard held(lock_);
    probe_.assign(upstream).append(1, '\n').append(principal);
    return probed(now);
}

account_vault::lookup account_vault::find(std::string_view upstream, std::string_view issuer,
                                          std::string_view subject,
                                          wall_clock::time_point now) const {
    std::lock_guard held(lock_);
    probe_.assign(upstream).append(1, '\n').append(issuer).append(1, '\n').append(subject);
    return probed(now);
}

std::optional<std::string> account_vault::fresh_line(std::string_view upstream,
                                                     std::string_view issuer,
                                                     std::string_view subject,
                                                     wall_clock::time_point now) const {
    std::lock_guard held(lock_);
    probe_.assign(upstream).append(1, '\n').append(issuer).append(1, '\n').append(subject);
    auto found = probed(now);
    if (found.what != standing::fresh)
        return std::nullopt;
    return *found.line;
}

std::size_t account_vault::size() const {
    std::lock_guard held(lock_);
    return entries_.size();
}

account_vault::lookup account_vault::probed(wall_clock::time_point now) const {
    auto it = entries_.find(probe_);
    if (it == entries_.end())
        return {};
    const auto& t = it->second.tokens;
    if (now >= t.expires_at)
        return {standing::expired, &t, nullptr};
    bool due =
        t.expires_at != wall_clock::time_point::max() && now >= t.expires_at - refresh_margin;
    return {due ? standing::due : standing::fresh, &t, &it->second.line};
}

void account_vault::keep(std::string_view upstream, std::string_view principal,
                         account_tokens tokens) {
    std::lock_guard held(lock_);
    auto key = key_of(upstream, principal);
    if (!entries_.contains(key) && entries_.size() >= capacity_) {
        auto oldest = std::min_element(entries_.begin(), entries_.end(), [](auto& a, auto& b) {
            return a.second.tokens.connected_at < b.second.tokens.connected_at;
        });
        entries_.erase(oldest);
    }
    auto line = "Authorization: Bearer " + tokens.access_token;
    entries_.insert_or_assign(std::move(key),
                              entry{std::string(upstream), std::string(principal),
                                    digest_of(principal), std::move(tokens), std::move(line)});
}

std::optional<account_tokens> account_vault::forget(std::string_view upstream,
                                                    std::string_view principal) {
    std::lock_guard held(lock_);
    auto node = entries_.extract(key_of(upstream, principal));
    if (node.empty())
        return std::nullopt;
    return std::move(node.mapped().tokens);
}

std::vector<forgotten_tokens> account_vault::forget_where(std::string_view upstream,
                                                          std::string_view digest) {
    std::lock_guard held(lock_);
    std::vector<forgotten_tokens> taken;
    for (auto it = entries_.begin(); it != entries_.end();) {
        auto& e = it->second;
        if ((upstream.empty() || e.upstream == upstream) &&
            (digest.empty() || e.digest == digest)) {
            taken.push_back({std::move(e.upstream), std::move(e.principal), std::move(e.tokens)});
            it = entries_.erase(it);
        } else {
            ++it;
        }
    }
    return taken;
}

std::string account_vault::digest_of(std::string_view principal) {
    return protocol::sha256_hex(principal, 32);
}

std::vector<connection_view> account_vault::connections(std::string_view principal) const {
    std::vector<connection_view> out;
    {
        // Copied under the lock, sorted outside it: every thread's calls read the vault.
        std::lock_guard held(lock_);
        for (const auto& [key, e] : entries_)
            if (principal.empty() || e.principal == principal)
                out.push_back({e.upstream, e.principal, e.tokens.scope, e.tokens.connected_at,
                               e.tokens.expires_at, !e.tokens.refresh_token.empty()});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return std::tie(a.principal, a.upstream) < std::tie(b.principal, b.upstream);
    });
    return out;
}

} // namespace gate::gateway::accounts
