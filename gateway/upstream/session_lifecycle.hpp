// The life of one upstream session (the root one or a client's bridged one), as plain C++:
// the state machine upstream_client drives, apart from the I/O.
//
//   fresh ──handshake──▶ handshaking ──published──▶ ready ──404 on its generation──▶ fresh
//                            │ failed ▲                 │
//                            └────────┘ (next caller)   └──end──▶ ended (for good)
//
// One caller handshakes at a time; the others wait for it (single flight). Every published
// handshake is a new generation: a 404 that answers a request of an older generation does
// not forget the newer session, and a GET stream of an older generation stops.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gate::gateway {

class session_lifecycle {
public:
    // What a caller that needs the session does now.
    enum class step : std::uint8_t {
        use,       // ready: send on it
        wait,      // another caller's handshake is under way: wait for it to end
        handshake, // nobody is: this caller handshakes (call begin_handshake)
        ended,     // ended, or no session and its client closed: fail
    };
    // A closed client (shutdown, a retired upstream) still serves requests on a ready session
    // (a request finishes on the snapshot it loaded) but opens no new one.
    step next(bool client_closed) const {
        if (ended_)
            return step::ended;
        if (ready_)
            return step::use;
        if (client_closed)
            return step::ended;
        return handshaking_ ? step::wait : step::handshake;
    }

    void begin_handshake() { handshaking_ = true; }
    // The handshake ended (published or failed); waiters look again.
    void end_handshake() { handshaking_ = false; }
    // The handshake's result is the session now: a new generation.
    std::uint64_t publish() {
        ready_ = true;
        return ++generation_;
    }
    // The upstream answered 404 to a request sent on generation `sent_on`: it forgot the
    // session. Only the current generation is forgotten, once, and not while a handshake is
    // already replacing it. True when this call forgot it (the caller resets the session's I/O).
    bool forgotten(std::uint64_t sent_on) {
        if (sent_on != generation_ || handshaking_ || !ready_)
            return false;
        ready_ = false;
        return true;
    }
    // Forgotten for another reason (its stream's connection is gone, a reset).
    void reset() { ready_ = false; }
    // Ended for good (the client's session ended, the upstream was retired). True when it was
    // ready (the caller tells the upstream: DELETE).
    bool end() {
        bool was_ready = ready_;
        ended_ = true;
        ready_ = false;
        return was_ready;
    }

    // Whether a GET stream opened on generation `g` still belongs to the live session.
    bool current(std::uint64_t g) const { return !ended_ && ready_ && generation_ == g; }

    // Requests using the session now (handshakes included): a busy one is not retired.
    void enter() { ++active_; }
    void leave() { --active_; }
    bool in_use() const { return active_ > 0; }

    bool ready() const { return ready_; }
    bool handshaking() const { return handshaking_; }
    bool ended() const { return ended_; }
    std::uint64_t generation() const { return generation_; }

private:
    std::uint64_t generation_ = 0;
    std::size_t active_ = 0;
    bool ready_ = false;
    bool handshaking_ = false;
    bool ended_ = false;
};

} // namespace gate::gateway
