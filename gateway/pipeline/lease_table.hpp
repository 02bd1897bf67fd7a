// Window slots granted by the limiter actor, kept on the io thread per key (a principal, a
// tenant) and spent there like the global lease (actors/guards/slot_lease), each with its own
// single ask in flight. Bounded: at the bound, leases with nothing left to spend and no ask out go
// (they hold nothing).
#pragma once

#include "actors/guards/sliding_window.hpp"
#include "actors/guards/slot_lease.hpp"
#include "transport/io/ask_flight.hpp"

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace gate::gateway {

// One window's admission: a slot of `lease`, or a batch asked for (one ask at a time) for what
// the lease expects to spend (slot_demand); `ask(demand)` gives an
// awaitable<optional<sliding_window::batch>> (nullopt: nobody answered). nullopt: admitted
// (an unanswered ask fails open); otherwise the refusing batch, with its wait.
template <class Ask>
boost::asio::awaitable<std::optional<actors::sliding_window::batch>>
admit_through(actors::slot_lease& lease, transport::ask_flight& flight, Ask ask) {
    using clock = std::chrono::steady_clock;
    std::optional<actors::sliding_window::batch> got;
    for (;;) {
        auto now = clock::now();
        if (lease.take(now))
            co_return std::nullopt;
        // Requests arriving while the ask is out spend what it brings.
        if (co_await flight.run_or_wait(
                [&, demand = lease.demand(now)]() mutable -> boost::asio::awaitable<void> {
                    got = co_await ask(demand);
                }))
            break;
    }
    if (!got)
        co_return std::nullopt; // nobody answered: fail open
    if (got->taken > 0) {
        lease.grant(got->taken, got->until, clock::now());
        co_return std::nullopt;
    }
    co_return got;
}

class lease_table {
public:
    struct entry {
        actors::slot_lease slots;
        transport::ask_flight flight;
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
            e->slots = actors::slot_lease{};
    }

    static constexpr std::size_t max_entries = 10'000;

private:
    std::unordered_map<std::string, std::shared_ptr<entry>> entries_;
};

} // namespace gate::gateway
