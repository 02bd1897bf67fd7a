// The upstream's guards on the io thread (stage 6): admissions decided from the view its board
// shows (guard_lease), asking the breaker actor only for the half-open probe and the upstream's
// actor only for a new batch of rate-limit slots; the tickets that report each admitted call's
// outcome to the breaker actor; and, with a fleet, the rate window and breaker shared through
// its store.
#pragma once

#include "actors/guards/guard_board.hpp"
#include "actors/guards/guard_lease.hpp"
#include "actors/guards/upstream_guard.hpp"
#include "config/model.hpp"
#include "gateway/upstream/upstream_call.hpp"
#include "transport/io/ask_flight.hpp"

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace gate::gateway {

class fleet_store;

class upstream_guards {
public:
    // `cfg` outlives the guards (the client's).
    // `board`: shared with the clients of the same entry on the other io threads (null: one of
    // its own).
    explicit upstream_guards(const config::upstream& cfg,
                             std::shared_ptr<actors::guard_board> board = nullptr);
    upstream_guards(const upstream_guards&) = delete;
    upstream_guards& operator=(const upstream_guards&) = delete;

    // Where the upstream's guards publish their view (actors/guards/guard_board).
    const std::shared_ptr<actors::guard_board>& board() const { return board_; }

    // An admission through the upstream guards. Its outcome is reported once (settle); a
    // ticket dropped without one (its caller went away) frees the half-open probe it holds.
    class ticket {
    public:
        // `granter`: the breaker actor that handed out the half-open probe (null for other
        // calls).
        explicit ticket(upstream_guards& g, actors::breaker_actor granter = {})
            : g_(&g), board_(g.board_), granter_(std::move(granter)) {}
        ticket(ticket&& o) noexcept
            : g_(std::exchange(o.g_, nullptr)), board_(std::move(o.board_)),
              granter_(std::move(o.granter_)) {}
        ticket& operator=(ticket&&) = delete;
        ~ticket();
        // `f`: why the operation failed; null when the upstream answered. A failure, and the
        // probe's outcome either way, is counted by the breaker actor before this returns,
        // so the next admission sees the circuit it changed.
        boost::asio::awaitable<void> settle(const upstream_failure* f);
        // The same where no message must be waited for (a success outside the half-open
        // probe, nearly always): true when settled, false when settle must be awaited.
        bool settle_now(const upstream_failure* f);

    private:
        bool probe() const { return static_cast<bool>(granter_); }
        // A success outside the probe: told to the breaker actor only where failures are
        // counted (or being counted); nothing to tell where no breaker actor is (a crash).
        bool settle_success();
        upstream_guards* g_;
        std::shared_ptr<actors::guard_board> board_; // outlives the guards at shutdown
        actors::breaker_actor granter_;
    };

    // An admission, or the refusal as a failure of kind circuit_open or rate_limited. Decided
    // from the published view without a message to an actor, except for the half-open probe
    // and a new batch of rate-limit slots.
    boost::asio::awaitable<std::variant<ticket, upstream_failure>> admit(actors::guard_use use);
    // The same where the lease decides without the actor (nearly always); nullopt where
    // admit must ask (a new batch, the half-open probe).
    std::optional<std::variant<ticket, upstream_failure>> admit_now(actors::guard_use use);

    // The circuit as /metrics and /health show it.
    actors::circuit_breaker::state breaker_state() const;
    // An endpoint could not be reached: the upstream's actor takes it out of rotation (passive
    // ejection).
    void endpoint_failed(std::size_t index, const std::string& why);
    // The fleet's shared store (gateway/fleet/fleet_store): the rate window and breaker become
    // the fleet's. Set once, before the first call.
    void share_through(std::shared_ptr<fleet_store> fleet) { fleet_ = std::move(fleet); }

private:
    upstream_failure refusal(const actors::upstream_guard::refused& r) const;
    // A batch of the rate window for an invocation: the fleet's when it shares one, else the
    // upstream actor's; one ask at a time, the others spend what it brings. The call's own slot
    // is in the batch it brought (admitted); `refused` says why when there was none; with
    // decide_again another call's ask ended meanwhile and the lease decides again.
    enum class window_batch : std::uint8_t { admitted, refused, decide_again };
    boost::asio::awaitable<window_batch> take_window_batch(actors::guard_use use,
                                                           upstream_failure& refused);
    // The half-open probe from the breaker actor, then (an invocation of a rate-limited
    // upstream) a window slot; a call refused its slot gives the probe back.
    boost::asio::awaitable<std::variant<ticket, upstream_failure>>
    take_probe(actors::guard_use use);
    // A failure counted by the fleet too: the fleet's count may open the circuit here, and an
    // opening (here or by the fleet's count) is published for the other instances.
    boost::asio::awaitable<void> share_failure();
    // This instance's view of the fleet's breaker reset by a success it saw.
    void share_success();

    const config::upstream& cfg_;
    std::shared_ptr<actors::guard_board> board_;
    actors::guard_lease lease_;      // rate-limit slots granted by the upstream's actor, spent here
    transport::ask_flight slot_ask_; // one batch ask at a time
    int failures_out_ = 0;           // failures reported and not yet counted by the breaker actor
    std::shared_ptr<fleet_store> fleet_;
    std::int64_t fleet_failures_ = 0; // the fleet's count after this instance's last failure
};

} // namespace gate::gateway
