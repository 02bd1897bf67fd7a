// The state a fleet of gate instances shares over Redis (server.redisUrl / REDIS_URL;
// docs/fleet.md), on the io thread: rate windows and budgets handed out in batches (one round
// trip buys many calls), breaker state, single-use jtis, task ownership, downstream sessions,
// pinned tool definitions.
//
// Every operation is bounded (500 ms) and answers nullopt when the store did not: the caller
// then fails open to its own per-instance state, and the fallback is counted
// (gate_shared_state_degraded_total{state}, gate_budget_degraded_total for budgets). An
// outage is logged once, with the recovery; while the store is down, operations do not wait
// on it but fail open at once, and one of them tries it again each second.
#pragma once

#include "actors/guards/sliding_window.hpp"
#include "gateway/fleet/shared_allowances.hpp"
#include "transport/redis/redis_client.hpp"

#include <array>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::gateway {

class metrics;

// What an instance takes from the fleet's store at start: the fleet's cursor key (the first
// instance to start sets it), so cursors page on any instance.
struct fleet_membership {
    std::array<unsigned char, 32> cursor_key{};
};
// At start, on an io_context of its own (before the gateway's runs): PING, then the fleet's
// cursor key; why not when the store does not answer (a boot failure: spec Errors rule 3).
std::variant<fleet_membership, std::string> join_fleet(const transport::redis_endpoint& ep);

class fleet_store final : public std::enable_shared_from_this<fleet_store>,
                          public shared_allowances {
public:
    using wall_time = std::chrono::system_clock::time_point;

    fleet_store(boost::asio::any_io_executor ex, transport::redis_endpoint ep, metrics& stats,
                std::chrono::milliseconds bound = transport::redis_client::default_bound);
    // Its roles hold it by reference (breakers(), sessions()): never copied.
    fleet_store(const fleet_store&) = delete;
    fleet_store& operator=(const fleet_store&) = delete;

    // A batch of slots of the fleet's window `scope` (60 one-second slots of a per-minute
    // limit, like actors/guards/sliding_window, kept in one Redis hash): what `demand` expects to
    // spend before the slot ends, at most a sixteenth of the room left, at least 1; none and
    // the wait when the window is full. `until` is this clock's.
    boost::asio::awaitable<std::optional<actors::sliding_window::batch>>
    take_window(const std::string& scope, std::int64_t limit,
                const actors::slot_demand& demand = {}) override;

    // A reservation of up to a sixteenth of what is left (1 to 64) of a budget account's
    // allowance for the period that ends at `ends`; 0 when the fleet has spent it all.
    boost::asio::awaitable<std::optional<std::int64_t>>
    reserve_budget(const std::string& account, std::int64_t allowance, wall_time ends) override;

    // Breakers (gateway/upstream/upstream_guards, mcp/fleet_sessions): a failure counted
    // fleet-wide (the fleet's consecutive failures after it), a success that resets the count,
    // an opening published for `rest`, and how long each of `upstreams` stays open as the fleet
    // sees it (0: not open).
    class breaker_side {
    public:
        boost::asio::awaitable<std::optional<std::int64_t>> failure(const std::string& upstream);
        void success(const std::string& upstream);
        void opened(const std::string& upstream, std::chrono::milliseconds rest);
        boost::asio::awaitable<std::optional<std::vector<std::chrono::milliseconds>>>
        open_for(const std::vector<std::string>& upstreams);

    private:
        friend class fleet_store;
        explicit breaker_side(fleet_store& store) : store_(store) {}
        fleet_store& store_;
    };
    breaker_side& breakers() { return breakers_; }

    // `key` claimed for `ttl` unless someone claimed it first: true when this claim is the
    // first (a single-use jti).
    boost::asio::awaitable<std::optional<bool>>
    claim_once(std::string_view state, const std::string& key, std::chrono::milliseconds ttl);
    // A record kept for `ttl`, and read back (nullopt: the store did not answer; an empty
    // inner optional: no such record).
    boost::asio::awaitable<bool> put(std::string_view state, const std::string& key,
                                     std::string value, std::chrono::milliseconds ttl);
    boost::asio::awaitable<std::optional<std::optional<std::string>>> get(std::string_view state,
                                                                          const std::string& key);
    // put() without waiting for it; take(): get() that also erases.
    void put_later(std::string_view state, const std::string& key, std::string value,
                   std::chrono::milliseconds ttl);
    boost::asio::awaitable<std::optional<std::optional<std::string>>> take(std::string_view state,
                                                                           const std::string& key);
    // Records read in one round trip (each inner nullopt: no such record), and erased in one.
    boost::asio::awaitable<std::optional<std::vector<std::optional<std::string>>>>
    get_many(std::string_view state, const std::vector<std::string>& keys);
    void erase(std::string_view state, const std::vector<std::string>& keys);
    // Each record set to its value unless it holds one already, every one kept for another
    // `ttl`, and what each holds now (the first value any instance wrote), index for index:
    // pins a fleet shares, in one round trip.
    boost::asio::awaitable<std::optional<std::vector<std::string>>>
    keep_first(std::string_view state,
               const std::vector<std::pair<std::string, std::string>>& records,
               std::chrono::milliseconds ttl);
    // Keeps a record alive for another `ttl` (fire-and-forget).
    void touch(std::string_view state, const std::string& key, std::chrono::milliseconds ttl);
    // A list of records, appended to (the list kept for `ttl` from the last append, its last
    // 1000 records at most) and taken whole (read and erased in one step; empty: nothing appended
    // since). What one instance says of a call piece by piece for another to follow.
    boost::asio::awaitable<bool> append(std::string_view state, const std::string& key,
                                        std::string value, std::chrono::milliseconds ttl);
    boost::asio::awaitable<std::optional<std::vector<std::string>>>
    take_all(std::string_view state, const std::string& key);

    // Downstream sessions (mcp/fleet_sessions): one ended (DELETE) anywhere is dropped from the
    // store and announced; the ids announced after `after` (ms since the epoch; announcements
    // live ten minutes), with the instant of the latest.
    struct endings {
        std::vector<std::string> ids;
        std::int64_t latest = 0;
    };
    class session_side {
    public:
        void ended(const std::string& id);
        boost::asio::awaitable<std::optional<endings>> ended_after(std::int64_t after);

    private:
        friend class fleet_store;
        explicit session_side(fleet_store& store) : store_(store) {}
        fleet_store& store_;
    };
    session_side& sessions() { return sessions_; }

    // What the fleet forgets together (a user's token): records erased by the prefix of their
    // names, and what one instance forgot announced for the others to forget in their own
    // memory, on `topic` (a Redis stream keeping its last 10,000 entries) and followed from a
    // cursor (a stream id, "<ms>-<n>"): each read's last.
    struct announcements {
        std::vector<std::string> items;
        std::string cursor;
    };
    class forget_side {
    public:
        // Every record of `state` whose name starts with `prefix` (SCAN, then UNLINK each
        // batch): how many, or nullopt when the store stopped answering part way.
        boost::asio::awaitable<std::optional<std::size_t>> erase_prefixed(std::string_view state,
                                                                          std::string_view prefix);
        void announce(std::string_view topic, const std::string& what);
        boost::asio::awaitable<std::optional<announcements>>
        announced_after(std::string_view topic, const std::string& cursor);

    private:
        friend class fleet_store;
        explicit forget_side(fleet_store& store) : store_(store) {}
        fleet_store& store_;
    };
    forget_side& forgetting() { return forgetting_; }

    // Writes the fleet's cursor key unless one is there (a store that lost its data).
    void keep_cursor_key(const std::array<unsigned char, 32>& key);

    bool up() const { return !down_; }
    const transport::redis_endpoint& endpoint() const { return client_->endpoint(); }
    void close() { client_->close(); }

private:
    // The reply to one command, or nullopt (counted under `state`, the outage logged once).
    // A Redis error reply is a failure too.
    boost::asio::awaitable<std::optional<transport::redis_value>>
    run(std::string_view state, std::vector<std::string> args);
    void fire(std::string_view state, std::vector<std::string> args);
    // A try that failed: counted, and the store rested for a second (the outage logged once).
    void failed(std::string_view state, const std::string& why);
    void count_fallback(std::string_view state);

    boost::asio::any_io_executor ex_;
    std::shared_ptr<transport::redis_client> client_;
    metrics& stats_;
    bool down_ = false;
    std::chrono::steady_clock::time_point retry_at_{};
    breaker_side breakers_{*this};
    session_side sessions_{*this};
    forget_side forgetting_{*this};
};

} // namespace gate::gateway
