#include "actors/bridge_ledger.hpp"

#include <algorithm>

namespace gate {

void bridge_ledger::touch(const std::string& session, const std::string& upstream, time_point now) {
    auto& use = bridges_[{session, upstream}];
    use.last_used = std::max(use.last_used, now);
}

void bridge_ledger::call_started(const std::string& session, const std::string& client_id,
                                 const std::string& upstream, boost::json::value upstream_id,
                                 time_point now) {
    touch(session, upstream, now);
    auto [it, fresh] = calls_.try_emplace({session, client_id}, call{upstream, upstream_id});
    if (fresh)
        ++bridges_[{session, upstream}].in_flight;
    else if (it->second.upstream == upstream)
        it->second.upstream_id = std::move(upstream_id); // a retry: cancel the newest request
}

void bridge_ledger::call_ended(const std::string& session, const std::string& client_id,
                               time_point now) {
    auto it = calls_.find({session, client_id});
    if (it == calls_.end())
        return;
    if (auto b = bridges_.find({session, it->second.upstream}); b != bridges_.end()) {
        if (b->second.in_flight > 0)
            --b->second.in_flight;
        b->second.last_used = std::max(b->second.last_used, now);
    }
    calls_.erase(it);
}

std::optional<call_target> bridge_ledger::cancel_target(const std::string& session,
                                                        const std::string& client_id) const {
    auto it = calls_.find({session, client_id});
    if (it == calls_.end())
        return std::nullopt;
    return call_target{it->second.upstream, it->second.upstream_id};
}

void bridge_ledger::subscribe(const std::string& session, const std::string& upstream,
                              const std::string& uri) {
    // The subscription lives on the client's bridged session: it keeps that session open.
    if (subscriptions_.emplace(upstream, uri, session).second)
        ++bridges_[{session, upstream}].subscriptions;
}

void bridge_ledger::unsubscribe(const std::string& session, const std::string& upstream,
                                const std::string& uri) {
    if (subscriptions_.erase({upstream, uri, session}) == 0)
        return;
    if (auto b = bridges_.find({session, upstream});
        b != bridges_.end() && b->second.subscriptions > 0)
        --b->second.subscriptions;
}

void bridge_ledger::listening(const std::string& session, bool open, time_point now) {
    if (open) {
        ++listening_[session];
        return;
    }
    auto it = listening_.find(session);
    if (it == listening_.end())
        return;
    if (--it->second > 0)
        return;
    listening_.erase(it);
    // Idle time counts from the moment the client stopped listening.
    for (auto b = bridges_.lower_bound({session, std::string()});
         b != bridges_.end() && b->first.first == session; ++b)
        b->second.last_used = std::max(b->second.last_used, now);
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

std::vector<retired_bridge> bridge_ledger::expire_idle(time_point now, duration idle) {
    std::vector<retired_bridge> out;
    for (auto it = bridges_.begin(); it != bridges_.end();) {
        // A call in flight (a long-running tool) keeps its bridge however old its start is.
        // So do subscriptions (updates arrive on that session) and a listening client.
        const auto& use = it->second;
        if (use.in_flight == 0 && use.subscriptions == 0 && now - use.last_used >= idle &&
            !listening_.contains(it->first.first)) {
            out.push_back({it->first.first, it->first.second});
            it = bridges_.erase(it);
        } else {
            ++it;
        }
    }
    return out;
}

std::vector<retired_bridge> bridge_ledger::end_session(const std::string& session) {
    std::vector<retired_bridge> out;
    for (auto it = bridges_.lower_bound({session, std::string()});
         it != bridges_.end() && it->first.first == session;) {
        out.push_back({session, it->first.second});
        it = bridges_.erase(it);
    }
    std::erase_if(calls_, [&](const auto& e) { return e.first.first == session; });
    std::erase_if(subscriptions_, [&](const auto& s) { return std::get<2>(s) == session; });
    listening_.erase(session);
    return out;
}

void bridge_ledger::forget_upstream(const std::string& upstream) {
    std::erase_if(bridges_, [&](const auto& e) { return e.first.second == upstream; });
    std::erase_if(calls_, [&](const auto& e) { return e.second.upstream == upstream; });
    std::erase_if(subscriptions_, [&](const auto& s) { return std::get<0>(s) == upstream; });
}

} // namespace gate
