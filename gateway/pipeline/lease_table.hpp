// Window slots granted by the limiter actor, kept on the io thread per key (a principal, a
// tenant) and spent there like the global lease (actors/guards/slot_lease), each with its own
// single ask in flight. Bounded: at the bound, leases with nothing left to spend and no ask out go
// (they hold nothing).
#pragma once

#include "actors/guards/slot_lease.hpp"
#include "transport/ask_flight.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>

namespace gate::transport {

class lease_table {
public:
    struct entry {
        slot_lease slots;
        ask_flight flight;
    };

    std::shared_ptr<entry> of(const std::string& key) {
        if (auto it = entries_.find(key); it != entries_.end())
            return it->second;
        if (entries_.size() >= max_entries) {
            auto now = std::chrono::steady_clock::now();
            std::erase_if(entries_, [&](const auto& e) {
                return e.second.use_count() == 1 && e.second->slots.tokens(now) == 0;
            });
        }
        return entries_.emplace(key, std::make_shared<entry>()).first->second;
    }
    std::size_t size() const { return entries_.size(); }
    // Drops every slot granted so far (a reload changed the limits they were counted under);
    // asks in flight stay, and what they bring is spent as usual.
    void revoke_all() {
        for (auto& [key, e] : entries_)
            e->slots = slot_lease{};
    }

    static constexpr std::size_t max_entries = 10'000;

private:
    std::unordered_map<std::string, std::shared_ptr<entry>> entries_;
};

} // namespace gate::transport
