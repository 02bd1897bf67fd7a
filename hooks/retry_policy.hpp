// When a failed delivery is tried again, and when it goes to the dead-letter queue instead
// (docs/webhooks.md, "Retries"). Plain C++: time and the random draw are passed in.
#pragma once

#include <chrono>
#include <optional>

namespace gate::hooks {

using clock_time = std::chrono::system_clock::time_point;
using std::chrono::milliseconds;

struct retry_policy {
    int max_attempts = 8;              // attempts in all, the first included
    milliseconds base{5000};           // the wait after the first failure
    milliseconds cap{4 * 3600 * 1000}; // no wait is longer
};

// How an attempt ended, as far as the schedule is concerned.
enum class attempt_outcome {
    delivered, // 2xx
    retry,     // anything else: timeout, refused, 5xx, 4xx
    gone,      // 410: the receiver says the webhook is gone; the webhook is disabled
};

attempt_outcome classify(int http_status);

// After `attempts_made` failed attempts at `now`: the time of the next one, or nullopt when
// the delivery goes to the dead-letter queue. The wait doubles from `base` up to `cap`, drawn
// from [wait/2, wait) by `jitter` in [0, 1) so receivers recovering from an outage are not
// hit by every sender at once; a receiver's Retry-After (seconds) is honoured when longer,
// up to `cap`.
std::optional<clock_time> next_attempt(const retry_policy& policy, int attempts_made,
                                       clock_time now, std::optional<milliseconds> retry_after,
                                       double jitter);

} // namespace gate::hooks
