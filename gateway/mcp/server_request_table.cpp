#include "gateway/mcp/server_request_table.hpp"

namespace gate::gateway {

void server_request_table::opened(const std::string& session, const std::string& minted_id,
                                  server_request_target target) {
    pending_[{session, minted_id}] = std::move(target);
}

std::optional<server_request_target> server_request_table::take(const std::string& session,
                                                                const std::string& minted_id) {
    auto it = pending_.find({session, minted_id});
    if (it == pending_.end())
        return std::nullopt;
    auto target = std::move(it->second);
    pending_.erase(it);
    return target;
}

void server_request_table::forget_session(const std::string& session) {
    // Keys are ordered by session first: one contiguous run.
    auto it = pending_.lower_bound({session, std::string()});
    while (it != pending_.end() && it->first.first == session)
        it = pending_.erase(it);
}

void server_request_table::forget_bridge(const std::string& session, const std::string& upstream) {
    auto it = pending_.lower_bound({session, std::string()});
    while (it != pending_.end() && it->first.first == session)
        it = it->second.upstream == upstream ? pending_.erase(it) : std::next(it);
}

void server_request_table::forget_upstream(const std::string& upstream) {
    std::erase_if(pending_, [&](const auto& e) { return e.second.upstream == upstream; });
}

} // namespace gate::gateway
