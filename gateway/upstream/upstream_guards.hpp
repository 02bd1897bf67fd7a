// The upstream's guards on the io thread (stage 6): admissions decided from the view the
// upstream's actor published (guard_lease), asking the actor only for a new batch of rate-limit
// slots or the half-open probe; the tickets that report each admitted call's outcome back to
// the actor; and, with a fleet, the rate window and breaker shared through its store.
#pragma once

#include "actors/guards/guard_board.hpp"
#include "actors/guards/guard_lease.hpp"
#include "actors/guards/upstream_guard.hpp"
#include "config/model.hpp"
#include "gateway/upstream/upstream_call.hpp"
#include "transport/ask_flight.hpp"

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace gate::transport {

class fleet_store;

class upstream_guards {
public:
    // `cfg` outlives the guards (the client's).
    explicit upstream_guards(const config::upstream& cfg);
    upstream_guards(const upstream_guards&) = delete;
    upstream_guards& operator=(const upstream_guards&) = delete;

    // Where the upstream's actor publishes its view (actors/guards/guard_board).
    const std::shared_ptr<guard_board>& board() const { return board_; }

    // An admission through the upstream guards. Its outcome is reported once (settle); a
    // ticket dropped without one (its caller went away) frees the half-open probe it holds.
    class ticket {
    public:
        // `granter`: the actor that handed out the half-open probe (null for other calls).
        explicit ticket(upstream_guards& g, upstream_actor granter = {})
            : g_(&g), board_(g.board_), granter_(std::move(granter)) {}
        ticket(ticket&& o) noexcept
            : g_(std::exchange(o.g_, nullptr)), board_(std::move(o.board_)),
              granter_(std::move(o.granter_)) {}
        ticket& operator=(ticket&&) = delete;
        ~ticket();
        // `f`: why the operation failed; null when the upstream answered. A failure, and the
        // probe's outcome either way, is counted by the upstream actor before this returns,
        // so the next admission sees the circuit it changed.
        boost::asio::awaitable<void> settle(const upstream_failure* f);
        // The same where no message must be waited for (a success outside the half-open
        // probe, nearly always): true when settled, false when settle must be awaited.
        bool settle_now(const upstream_failure* f);

    private:
        bool probe() const { return static_cast<bool>(granter_); }
        upstream_guards* g_;
        std::shared_ptr<guard_board> board_; // outlives the guards at shutdown
        upstream_actor granter_;
    };

    // An admission, or the refusal as a failure of kind circuit_open or rate_limited. Decided
    // from the published view without a message to the actor, except for the half-open probe
    // and a new batch of rate-limit slots.
    boost::asio::awaitable<std::variant<ticket, upstream_failure>> admit(guard_use use);
    // The same where the lease decides without the actor (nearly always); nullopt where
    // admit must ask (a new batch, the half-open probe).
    std::optional<std::variant<ticket, upstream_failure>> admit_now(guard_use use);

    // The circuit as /metrics and /health show it.
    circuit_breaker::state breaker_state() const;
    // An endpoint could not be reached: the actor takes it out of rotation (passive ejection).
    void endpoint_failed(std::size_t index, const std::string& why);
    // The fleet's shared store (gateway/fleet/fleet_store): the rate window and breaker become
    // the fleet's. Set once, before the first call.
    void share_through(std::shared_ptr<fleet_store> fleet) { fleet_ = std::move(fleet); }

private:
    upstream_failure refusal(const upstream_guard::refused& r) const;
    // A failure counted by the fleet too: the fleet's count may open the circuit here, and an
    // opening (here or by the fleet's count) is published for the other instances.
    boost::asio::awaitable<void> share_failure();
    // This instance's view of the fleet's breaker reset by a success it saw.
    void share_success();

    const config::upstream& cfg_;
    std::shared_ptr<guard_board> board_;
    guard_lease lease_;    // rate-limit slots granted by the actor, spent here
    ask_flight slot_ask_;  // one batch ask at a time
    int failures_out_ = 0; // failures reported and not yet counted by the actor
    std::shared_ptr<fleet_store> fleet_;
    std::int64_t fleet_failures_ = 0; // the fleet's count after this instance's last failure
};

} // namespace gate::transport
