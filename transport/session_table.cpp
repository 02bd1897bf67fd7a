#include "transport/session_table.hpp"

#include "transport/random_id.hpp"

#include <algorithm>
#include <stdexcept>

namespace gate::transport {

namespace {
void wake(downstream_session& s) {
    for (auto& w : s.streams)
        if (auto t = w.lock())
            t->cancel();
}
} // namespace

std::optional<std::string> session_table::open(std::string protocol_version, time_point now,
                                               boost::json::object capabilities, std::string owner,
                                               std::shared_ptr<const principal> who) {
    auto id = random_id();
    if (!adopt(id, std::move(protocol_version), now, std::move(capabilities), std::move(owner),
               std::move(who)))
        return std::nullopt;
    return id;
}

bool session_table::adopt(const std::string& id, std::string protocol_version, time_point now,
                          boost::json::object capabilities, std::string owner,
                          std::shared_ptr<const principal> who) {
    std::lock_guard lock(mutex_);
    if (sessions_.contains(id))
        return true;
    if (sessions_.size() >= max_sessions_)
        return false;
    sessions_[id] = downstream_session{std::move(protocol_version),
                                       std::move(capabilities),
                                       now,
                                       {},
                                       {},
                                       std::move(owner),
                                       std::move(who)};
    return true;
}

std::vector<std::string> session_table::used_since(time_point since) const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [id, s] : sessions_)
        if (s.last_used >= since)
            out.push_back(id);
    return out;
}

bool session_table::listening(const std::string& id) const {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    return it != sessions_.end() &&
           std::any_of(it->second.streams.begin(), it->second.streams.end(),
                       [](const auto& w) { return !w.expired(); });
}

std::shared_ptr<const principal> session_table::principal_of(const std::string& id) const {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    return it == sessions_.end() ? nullptr : it->second.who;
}

bool session_table::owned_by(const std::string& id, std::string_view owner) const {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    return it != sessions_.end() && it->second.owner == owner;
}

boost::json::object session_table::capabilities(const std::string& id) const {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    return it == sessions_.end() ? boost::json::object{} : it->second.capabilities;
}

bool session_table::deliver(const std::string& id, const std::string& message) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return false;
    auto& s = it->second;
    if (s.outbox.size() >= 256)
        s.outbox.pop_front();
    s.outbox.push_back(message);
    wake(s);
    return true;
}

bool session_table::contains(const std::string& id) const {
    std::lock_guard lock(mutex_);
    return sessions_.contains(id);
}

std::optional<std::string> session_table::touch(const std::string& id, time_point now) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return std::nullopt;
    it->second.last_used = now;
    return it->second.protocol_version;
}

std::vector<std::string> session_table::expire_idle(time_point now,
                                                    std::chrono::steady_clock::duration idle) {
    std::lock_guard lock(mutex_);
    std::vector<std::string> gone;
    std::erase_if(sessions_, [&](const auto& entry) {
        const auto& s = entry.second;
        bool streaming =
            std::any_of(s.streams.begin(), s.streams.end(), [](auto& w) { return !w.expired(); });
        bool idle_out = !streaming && now - s.last_used >= idle;
        if (idle_out)
            gone.push_back(entry.first);
        return idle_out;
    });
    return gone;
}

session_table::attach_result
session_table::attach_stream(const std::string& id,
                             std::weak_ptr<boost::asio::steady_timer> stream) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return attach_result::unknown_session;
    auto& streams = it->second.streams;
    std::erase_if(streams, [](auto& w) { return w.expired(); });
    if (streams.size() >= max_streams_per_session)
        return attach_result::too_many_streams;
    streams.push_back(std::move(stream));
    return attach_result::attached;
}

void session_table::broadcast(const std::string& message) {
    std::lock_guard lock(mutex_);
    for (auto& [id, s] : sessions_) {
        // Only sessions with an open stream can receive anything; a client that never reads
        // its stream must not grow the gateway without bound either.
        if (std::none_of(s.streams.begin(), s.streams.end(), [](auto& w) { return !w.expired(); }))
            continue;
        if (s.outbox.size() >= 256)
            s.outbox.pop_front();
        s.outbox.push_back(message);
        wake(s);
    }
}

std::vector<std::string> session_table::take_outbox(const std::string& id) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return {};
    std::vector<std::string> out(std::make_move_iterator(it->second.outbox.begin()),
                                 std::make_move_iterator(it->second.outbox.end()));
    it->second.outbox.clear();
    return out;
}

bool session_table::close(const std::string& id) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return false;
    wake(it->second);
    sessions_.erase(it);
    return true;
}

std::vector<std::string> session_table::close_all() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> gone;
    for (auto& [id, s] : sessions_) {
        wake(s);
        gone.push_back(id);
    }
    sessions_.clear();
    return gone;
}

std::size_t session_table::size() const {
    std::lock_guard lock(mutex_);
    return sessions_.size();
}

} // namespace gate::transport
