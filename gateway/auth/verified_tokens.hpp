// Tokens verified recently (docs/security.md): the principal each stands for, until when, and
// which key verified it (its issuer and kid), so a token is not verified again on every call (an
// ES256 check costs more than the rest of the call) and a key its issuer withdraws takes the
// tokens it verified with it at once. Bounded in time (ttl_seconds, and whatever the caller
// bounds more: the token's expiry, its key set's next refetch) and in size (max_entries: a flood
// of distinct tokens starts the memory over). Plain C++, time passed in (seconds since the epoch).
#pragma once

#include "policy/principal.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gate::gateway {

class verified_tokens {
public:
    static constexpr std::int64_t ttl_seconds = 60;
    static constexpr std::size_t max_entries = 10'000;

    // The principal `token` stands for while its memory holds at `now`; null otherwise (an
    // entry past its time is forgotten here).
    policy::caller_ref find(std::string_view token, std::int64_t now);
    // `token`, verified at `now` by `issuer`'s (its index) key `kid` ("" when the token named
    // none and any key that fit was tried), remembered until `until` or ttl_seconds, whichever
    // comes first.
    void remember(std::string_view token, policy::caller_ref who, std::size_t issuer,
                  std::string_view kid, std::int64_t now, std::int64_t until);
    // `issuer`'s key set no longer has the keys `kids` names (protocol/jose's withdrawn_kids):
    // every token one of them verified is forgotten, and so is every token of that issuer that
    // named no kid (any key may have been the one that verified it). How many were forgotten.
    std::size_t forget(std::size_t issuer, std::span<const std::string> kids);

    std::size_t size() const { return entries_.size(); }

private:
    struct entry {
        policy::caller_ref who;
        std::int64_t valid_until = 0;
        std::size_t issuer = 0;
        std::string kid;
    };
    // Looked up by the token as it arrived, without a copy.
    struct token_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::unordered_map<std::string, entry, token_hash, std::equal_to<>> entries_;
};

} // namespace gate::gateway
