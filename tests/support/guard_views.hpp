// A whole guard view staged on a board, as the breaker actor and the upstream's actor would
// publish it between them (each publishes only its own part: actors/guards/guard_board.hpp).
#pragma once

#include "actors/guards/guard_board.hpp"

namespace gate::test {

inline void publish_view(actors::guard_board& board, const actors::guard_view& v) {
    board.publish_breaker(v.breaker, v.probe_out, v.reopens_at, v.failures);
    board.publish_rotation(v.limited, v.in_rotation);
    if (v.given_up)
        board.give_up();
}

// The view of an upstream whose actor the supervisor gave up on.
inline actors::guard_view given_up_view(const config::upstream& cfg) {
    auto v = actors::guard_board::initial_view(cfg);
    v.given_up = true;
    return v;
}

} // namespace gate::test
