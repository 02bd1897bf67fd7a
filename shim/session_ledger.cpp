#include "shim/session_ledger.hpp"

namespace gate::shim {

bool session_ledger::admit(const std::string& id, clock::time_point now) {
    if (entries_.size() >= max_ || entries_.contains(id))
        return false;
    entries_.emplace(id, entry{now, 0, false});
    return true;
}

void session_ledger::begin_use(const std::string& id, clock::time_point now) {
    if (auto it = entries_.find(id); it != entries_.end()) {
        ++it->second.in_use;
        it->second.last_used = now;
    }
}

void session_ledger::end_use(const std::string& id, clock::time_point now) {
    if (auto it = entries_.find(id); it != entries_.end()) {
        if (it->second.in_use > 0)
            --it->second.in_use;
        it->second.last_used = now;
    }
}

std::vector<std::string> session_ledger::take_idle(clock::time_point now) {
    std::vector<std::string> out;
    for (auto& [id, e] : entries_)
        if (!e.closing && e.in_use == 0 && now - e.last_used >= idle_after_) {
            e.closing = true;
            out.push_back(id);
        }
    return out;
}

void session_ledger::closing(const std::string& id) {
    if (auto it = entries_.find(id); it != entries_.end())
        it->second.closing = true;
}

void session_ledger::released(const std::string& id) {
    entries_.erase(id);
}

bool session_ledger::live(const std::string& id) const {
    auto it = entries_.find(id);
    return it != entries_.end() && !it->second.closing;
}

std::size_t session_ledger::live_count() const {
    std::size_t n = 0;
    for (const auto& [id, e] : entries_)
        n += !e.closing;
    return n;
}

} // namespace gate::shim
