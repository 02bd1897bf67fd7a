// Where an upstream's actor and the io thread meet: the actor publishes its guard view here
// and the io thread reads it on every call; the io thread finds the actor here (a respawned
// actor attaches itself to the same board) and registers the probe round the actor's health
// timer asks for. The board outlives the actors: it belongs to the upstream (its client on
// the io thread), which a reload keeps when the upstream's entry is unchanged.
#pragma once

#include "actors/federation/upstream_actor.hpp"
#include "actors/guards/guard_changes.hpp"
#include "actors/guards/guard_view.hpp"
#include "config/model.hpp"

#include <functional>
#include <memory>
#include <mutex>

namespace gate {

class guard_board {
public:
    explicit guard_board(config::upstream cfg);

    const config::upstream& config() const { return cfg_; }
    // The view before any actor decided anything: closed, every endpoint in rotation.
    static guard_view initial_view(const config::upstream& cfg);
    // The view once the supervisor gave up on the actor: every exchange refused, the circuit
    // shown open with no end to its rest (gate_upstream_breaker_state reads 2).
    static guard_view given_up_view(const config::upstream& cfg);

    std::shared_ptr<const guard_view> view() const {
        std::lock_guard lock(mutex_);
        return view_;
    }
    void publish(std::shared_ptr<const guard_view> v) {
        auto at = guard_view::time_point::clock::now(); // not the actor's: the io thread reads it
        std::lock_guard lock(mutex_);
        changes_.note(view_.get(), *v, at);
        view_ = std::move(v);
    }
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
    // The io thread's probe round (it posts itself onto the io thread). False when none is
    // registered yet.
    void on_probe_round(std::function<void()> round) {
        std::lock_guard lock(mutex_);
        probe_round_ = std::move(round);
    }
    bool request_probe_round() const;

private:
    const config::upstream cfg_;
    mutable std::mutex mutex_; // held for a pointer copy or a change noted; never across a call
    std::shared_ptr<const guard_view> view_;
    guard_changes changes_;
    upstream_actor actor_;
    std::function<void()> probe_round_;
};

} // namespace gate
