// How the supervisor judges one child's crashes, as plain C++ with time passed in: at most
// `max_restarts` restarts within `within` (the child's restart intensity, as Erlang/OTP
// supervisors count it), each after a pause that doubles with the restarts already in the
// window. A crash past the intensity is a give-up: the child is left stopped (an upstream's
// actor; its upstream then refuses calls) or the supervisor itself stops (a process-wide actor;
// gate then exits non-zero and its service manager restarts it). An isolated crash is
// restarted at once, as before; only a crash loop waits, and the pauses bound how fast it
// spins and logs (docs/architecture.md, Supervision).
#pragma once

#include <boost/describe/class.hpp>
#include <chrono>
#include <cstddef>
#include <deque>
#include <variant>

namespace gate::actors {

struct restart_policy {
    std::size_t max_restarts = 5;
    std::chrono::milliseconds within{60'000};
    // The first restart in the window is immediate; the second waits `first_pause`, and each
    // later one twice the one before, up to `max_pause`.
    std::chrono::milliseconds first_pause{100};
    std::chrono::milliseconds max_pause{5'000};
};

class restart_intensity {
public:
    using time_point = std::chrono::steady_clock::time_point;

    restart_intensity() = default;
    explicit restart_intensity(restart_policy policy) : policy_(policy) {}

    // Restart after `pause`; `count` is this restart's place among those within the window.
    struct restart {
        std::chrono::milliseconds pause{0};
        std::size_t count = 0;
        // Described for the supervisor's timer that carries it (actors/message_inspection.hpp).
        BOOST_DESCRIBE_CLASS(restart, (), (pause, count), (), ())
    };
    // The window already holds max_restarts restarts: do not restart.
    struct give_up {
        std::size_t count = 0; // restarts within the window, the refused one not among them
    };
    // The child stopped at `now`. A restart granted counts against the window from `now`.
    std::variant<restart, give_up> stopped(time_point now);

    const restart_policy& policy() const { return policy_; }

private:
    restart_policy policy_;
    std::deque<time_point> recent_; // restarts granted within the window, oldest first
};

} // namespace gate::actors
