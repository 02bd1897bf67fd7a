// Which shim sessions exist, which are busy, and which have idled out: the admission and
// expiry decisions of gate-stdio, with time passed in. A slot is held from admission until
// the session's child is reaped, not merely until the session is closed (spec: "Shim
// session" lifecycle), so the ceiling bounds live processes, not live session ids.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace gate::shim {

class session_ledger {
public:
    using clock = std::chrono::steady_clock;

    session_ledger(std::size_t max_sessions, clock::duration idle_after)
        : max_(max_sessions), idle_after_(idle_after) {}

    // Takes a slot for a new session; false at the ceiling (503 + Retry-After).
    bool admit(const std::string& id, clock::time_point now);
    // A request or stream of the session began or ended; busy sessions never idle out.
    void begin_use(const std::string& id, clock::time_point now);
    void end_use(const std::string& id, clock::time_point now);
    // Sessions idle for the configured time with nothing in flight; they become closing.
    std::vector<std::string> take_idle(clock::time_point now);
    // The session ends (DELETE, idle, child exit, shutdown): no longer live, slot still held.
    void closing(const std::string& id);
    // The child is reaped: the slot is free.
    void released(const std::string& id);

    bool live(const std::string& id) const;
    std::size_t live_count() const;
    std::size_t held() const { return entries_.size(); }
    std::size_t max() const { return max_; }

private:
    struct entry {
        clock::time_point last_used;
        std::size_t in_use = 0;
        bool closing = false;
    };
    std::size_t max_;
    clock::duration idle_after_;
    std::unordered_map<std::string, entry> entries_;
};

} // namespace gate::shim
