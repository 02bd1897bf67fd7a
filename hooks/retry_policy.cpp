#include "hooks/retry_policy.hpp"

#include <algorithm>

namespace gate::hooks {

attempt_outcome classify(int http_status) {
    if (http_status >= 200 && http_status < 300)
        return attempt_outcome::delivered;
    if (http_status == 410)
        return attempt_outcome::gone;
    return attempt_outcome::retry;
}

std::optional<clock_time> next_attempt(const retry_policy& policy, int attempts_made,
                                       clock_time now, std::optional<milliseconds> retry_after,
                                       double jitter) {
    if (attempts_made >= policy.max_attempts)
        return std::nullopt;
    auto wait = policy.base;
    for (int i = 1; i < attempts_made && wait < policy.cap; ++i)
        wait *= 2;
    wait = std::min(wait, policy.cap);
    jitter = std::clamp(jitter, 0.0, 1.0);
    auto drawn = milliseconds(
        static_cast<milliseconds::rep>(static_cast<double>(wait.count()) * (0.5 + jitter / 2)));
    if (retry_after)
        drawn = std::max(drawn, std::min(*retry_after, policy.cap));
    return now + drawn;
}

} // namespace gate::hooks
