#include "actors/bridging/bridge_ledger.hpp"

#include <algorithm>

namespace gate::actors {

bool bridge_ledger::call_started(const std::string& session, const std::string& client_id,
                                 const std::string& upstream) {
    auto [it, fresh] = calls_.try_emplace({session, client_id}, upstream);
    return fresh || it->second == upstream; // the same upstream again: a retry
}

std::optional<std::string> bridge_ledger::call_ended(const std::string& session,
                                                     const std::string& client_id) {
    auto it = calls_.find({session, client_id});
    if (it == calls_.end())
        return std::nullopt;
    auto upstream = std::move(it->second);
    calls_.erase(it);
    return upstream;
}

std::optional<std::string> bridge_ledger::call_upstream(const std::string& session,
                                                        const std::string& client_id) const {
    auto it = calls_.find({session, client_id});
    if (it == calls_.end())
        return std::nullopt;
    return it->second;
}

bool bridge_ledger::subscribe(const std::string& session, const std::string& upstream,
                              const std::string& uri) {
    return subscriptions_.emplace(upstream, uri, session).second;
}

bool bridge_ledger::unsubscribe(const std::string& session, const std::string& upstream,
                                const std::string& uri) {
    return subscriptions_.erase({upstream, uri, session}) > 0;
}

std::vector<std::string>
bridge_ledger::subscribers(const std::string& upstream, const std::string& uri,
                           const std::optional<std::string>& origin) const {
    std::vector<std::string> out;
    if (origin) {
        if (subscriptions_.contains({upstream, uri, *origin}))
            out.push_back(*origin);
        return out;
    }
    // The set is ordered by (upstream, uri, session): one contiguous run.
    for (auto it = subscriptions_.lower_bound({upstream, uri, std::string()});
         it != subscriptions_.end() && std::get<0>(*it) == upstream && std::get<1>(*it) == uri;
         ++it)
        out.push_back(std::get<2>(*it));
    return out;
}

void bridge_ledger::end_session(const std::string& session) {
    std::erase_if(calls_, [&](const auto& e) { return e.first.first == session; });
    std::erase_if(subscriptions_, [&](const auto& s) { return std::get<2>(s) == session; });
}

void bridge_ledger::forget_upstream(const std::string& upstream) {
    std::erase_if(calls_, [&](const auto& e) { return e.second == upstream; });
    std::erase_if(subscriptions_, [&](const auto& s) { return std::get<0>(s) == upstream; });
}

} // namespace gate::actors
