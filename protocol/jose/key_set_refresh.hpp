// When an issuer's key set is fetched (spec: Authentication, Inbound rule 4): on first use, when
// a token names a kid the set does not have, when the set's lifetime (key_set_lifetime: its
// answer's caching headers, bounded) has passed, and after a failure; never twice within
// `min_interval`, so a flood of tokens with invented kids (or an identity provider that is down)
// costs the provider one fetch per interval, not one per token. A failed refetch keeps the set
// in hand, which stays in use until a refetch succeeds. Time passed in.
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>

namespace gate::protocol::jose {

struct key_set_refresh {
    using clock = std::chrono::steady_clock;
    static constexpr auto min_interval = std::chrono::seconds(10);
    // A set's lifetime is bounded to [min_interval, max_lifetime]; default_lifetime when its
    // answer says nothing about caching.
    static constexpr auto max_lifetime = std::chrono::seconds(std::chrono::hours(1));
    static constexpr auto default_lifetime = std::chrono::seconds(std::chrono::minutes(5));

    std::optional<clock::time_point> last_attempt; // when the last fetch ended
    std::optional<clock::time_point> fetched_at;   // the set in hand, when there is one
    clock::duration lifetime = default_lifetime;   // of the set in hand

    bool should_fetch(bool kid_known, clock::time_point now) const {
        if (!last_attempt)
            return true;
        if (now - *last_attempt < min_interval)
            return false;
        return !fetched_at || !kid_known || now - *fetched_at >= lifetime;
    }
    // When a token naming a kid the set has would next make gate fetch it: its lifetime passed,
    // and min_interval after the last fetch. A token verified with the set may be remembered
    // until then, not beyond (gateway/auth/verified_tokens). Null without a set in hand.
    std::optional<clock::time_point> due_at() const {
        if (!fetched_at || !last_attempt)
            return std::nullopt;
        return std::max(*fetched_at + lifetime, *last_attempt + min_interval);
    }
    void attempted(clock::time_point now) { last_attempt = now; }
    void fetched(clock::time_point now, clock::duration set_lifetime) {
        fetched_at = now;
        lifetime = std::clamp<clock::duration>(set_lifetime, min_interval, max_lifetime);
    }
};

} // namespace gate::protocol::jose
