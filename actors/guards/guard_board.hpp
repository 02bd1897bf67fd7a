// Where an upstream's guards and the io thread meet. Two actors publish here, each its own part
// of the one view the io thread reads on every call: the breaker actor the circuit
// (publish_breaker), the upstream's actor its rate limit and replicas (publish_rotation). The
// io thread finds both actors here (a respawned one attaches itself to the same board) and
// registers the probe round the upstream actor's health timer asks for. The board outlives the
// actors: it belongs to the upstream (its client on the io thread), which a reload keeps when
// the upstream's entry is unchanged.
#pragma once

#include "actors/federation/upstream_actor.hpp"
#include "actors/guards/breaker_actor.hpp"
#include "actors/guards/guard_changes.hpp"
#include "actors/guards/guard_view.hpp"
#include "actors/published.hpp"
#include "config/model.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

namespace gate::actors {

class guard_board {
public:
    // The entry its clients read (one copy for every io thread's client of it).
    explicit guard_board(std::shared_ptr<const config::upstream> cfg);
    explicit guard_board(const config::upstream& cfg); // a copy of its own

    const config::upstream& config() const { return *cfg_; }
    // The view before any actor decided anything: closed, every endpoint in rotation.
    static guard_view initial_view(const config::upstream& cfg);

    // Read on every call (twice): published, not under the mutex the writers take.
    std::shared_ptr<const guard_view> view() const { return view_.load(); }
    // The circuit as the breaker actor decided it (the fields circuit_breaker decides).
    void publish_breaker(circuit_breaker::state recorded, bool probe_out,
                         guard_view::time_point reopens_at, std::int64_t failures);
    // The rate limit and replicas as the upstream's actor decided them; a fresh actor's also
    // clears a give-up.
    void publish_rotation(bool limited, std::vector<bool> in_rotation);
    // The supervisor gave up on the upstream's actor: every exchange is refused and the circuit
    // shows open with no end to its rest (gate_upstream_breaker_state reads 2) until a reload
    // gives the actor a fresh start (publish_rotation).
    void give_up();
    // The latest breaker and rotation changes of the published views, oldest first (the
    // console's timeline; guard_changes.hpp).
    std::vector<guard_change> changes() const {
        std::lock_guard lock(mutex_);
        return changes_.list();
    }
    // Null until the supervisor spawned the actor (and between a crash and the respawn).
    upstream_actor actor() const {
        std::lock_guard lock(mutex_);
        return actor_;
    }
    void attach(upstream_actor a) {
        std::lock_guard lock(mutex_);
        actor_ = std::move(a);
    }
    // The breaker actor holding this upstream's circuit; null until it took the board (and
    // between its crash and its respawn).
    breaker_actor breaker() const {
        std::lock_guard lock(mutex_);
        return breaker_;
    }
    // Whether one holds it now, without the handle (a call's success asks no more).
    bool has_breaker() const { return has_breaker_.load(std::memory_order_acquire); }
    void attach_breaker(breaker_actor a) {
        std::lock_guard lock(mutex_);
        has_breaker_.store(static_cast<bool>(a), std::memory_order_release);
        breaker_ = std::move(a);
    }
    // The io thread's probe round (it posts itself onto the io thread), registered by
    // `prober` (one client of the upstream; with several io threads, the last to register
    // probes for all: docs/io-threads.md). False when none is registered yet.
    void on_probe_round(const void* prober, std::function<void()> round) {
        std::lock_guard lock(mutex_);
        prober_ = prober;
        probe_round_ = std::move(round);
    }
    // `prober` stops probing (a round another client registered since stays).
    void drop_probe_round(const void* prober) {
        std::lock_guard lock(mutex_);
        if (prober_ != prober)
            return;
        prober_ = nullptr;
        probe_round_ = nullptr;
    }
    bool request_probe_round() const;

private:
    // Publishes a copy of the view changed by `change`, when it differs (readers then see one
    // pointer swap, not a copy per call).
    template <class Change> void amend(Change change);

    const std::shared_ptr<const config::upstream> cfg_;
    mutable std::mutex mutex_; // held for a pointer copy or a change noted; never across a call
    actors::published<const guard_view> view_;
    std::atomic<bool> has_breaker_ = false;
    guard_changes changes_;
    upstream_actor actor_;
    breaker_actor breaker_;
    std::function<void()> probe_round_;
    const void* prober_ = nullptr;
};

} // namespace gate::actors
