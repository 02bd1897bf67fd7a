// When an issuer's key set is fetched (spec: Authentication, Inbound rule 4): on first use, when
// a token names a kid the set does not have, when the set is old, and after a failure; never
// twice within `min_interval`, so a flood of tokens with invented kids (or an identity provider
// that is down) costs the provider one fetch per interval, not one per token. Time passed in.
#pragma once

#include <chrono>
#include <optional>

namespace gate::protocol::jose {

struct key_set_refresh {
    using clock = std::chrono::steady_clock;
    static constexpr auto min_interval = std::chrono::seconds(10);
    static constexpr auto max_age = std::chrono::hours(1);

    std::optional<clock::time_point> last_attempt; // when the last fetch ended
    std::optional<clock::time_point> fetched_at;   // the set in hand, when there is one

    bool should_fetch(bool kid_known, clock::time_point now) const {
        if (!last_attempt)
            return true;
        if (now - *last_attempt < min_interval)
            return false;
        return !fetched_at || !kid_known || now - *fetched_at >= max_age;
    }
    void attempted(clock::time_point now) { last_attempt = now; }
    void fetched(clock::time_point now) { fetched_at = now; }
};

} // namespace gate::protocol::jose
