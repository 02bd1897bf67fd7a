#include "shim/session_outbox.hpp"

#include <algorithm>

namespace gate::shim {

session_outbox::stream_id session_outbox::open() {
    auto id = ++next_;
    queues_.emplace(id, queue{});
    return id;
}

void session_outbox::close(stream_id id) {
    if (id == backlog)
        return;
    auto it = queues_.find(id);
    if (it == queues_.end())
        return;
    held_ -= it->second.held();
    queues_.erase(it);
}

void session_outbox::adopt_backlog(stream_id id) {
    auto to = queues_.find(id);
    if (id == backlog || to == queues_.end())
        return;
    auto& from = queues_.at(backlog);
    for (auto& m : from.messages)
        to->second.messages.push_back(std::move(m));
    to->second.queued_bytes += from.queued_bytes;
    from.messages.clear();
    from.queued_bytes = 0;
}

void session_outbox::drop_oldest_held(queue& q) {
    auto n = q.messages.front().size();
    q.messages.pop_front();
    q.queued_bytes -= n;
    held_ -= n;
}

bool session_outbox::make_room(stream_id to, std::size_t incoming, pushed& out) {
    while (held_ + incoming > max_bytes_ && held_ > 0) {
        auto most = std::max_element(queues_.begin(), queues_.end(), [](auto& a, auto& b) {
            return a.second.held() < b.second.held();
        });
        if (most->first == backlog && !most->second.messages.empty()) {
            drop_oldest_held(most->second);
            ++out.backlog_dropped;
            continue;
        }
        if (most->first == backlog) // only bytes in flight, which the backlog never has
            break;
        out.cut.push_back({most->first, most->second.held()});
        out.dropped += most->second.messages.size();
        held_ -= most->second.held();
        bool self = most->first == to;
        queues_.erase(most);
        if (self)
            return false;
    }
    return true;
}

session_outbox::pushed session_outbox::push(stream_id to, std::string message) {
    pushed out;
    auto it = queues_.find(to);
    if (it == queues_.end()) {
        out.queued = false;
        out.dropped = 1;
        return out;
    }
    if (to == backlog && it->second.messages.size() >= max_backlog_ && max_backlog_ > 0) {
        drop_oldest_held(it->second);
        ++out.backlog_dropped;
    }
    if (!make_room(to, message.size(), out)) {
        out.queued = false;
        ++out.dropped; // the message goes with its stream
        return out;
    }
    auto& q = queues_.at(to);
    q.queued_bytes += message.size();
    held_ += message.size();
    q.messages.push_back(std::move(message));
    return out;
}

bool session_outbox::has_queued(stream_id id) const {
    auto it = queues_.find(id);
    return it != queues_.end() && !it->second.messages.empty();
}

std::vector<std::string> session_outbox::take(stream_id id) {
    std::vector<std::string> out;
    auto it = queues_.find(id);
    if (it == queues_.end())
        return out;
    auto& q = it->second;
    out.reserve(q.messages.size());
    for (auto& m : q.messages)
        out.push_back(std::move(m));
    q.messages.clear();
    q.writing_bytes += q.queued_bytes;
    q.queued_bytes = 0;
    return out;
}

void session_outbox::written(stream_id id) {
    auto it = queues_.find(id);
    if (it == queues_.end())
        return;
    held_ -= it->second.writing_bytes;
    it->second.writing_bytes = 0;
}

std::size_t session_outbox::held(stream_id id) const {
    auto it = queues_.find(id);
    return it == queues_.end() ? 0 : it->second.held();
}

std::size_t session_outbox::queued_messages(stream_id id) const {
    auto it = queues_.find(id);
    return it == queues_.end() ? 0 : it->second.messages.size();
}

} // namespace gate::shim
