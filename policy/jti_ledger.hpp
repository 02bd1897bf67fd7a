// Assertion ids already redeemed (auth.ema: each jti single-use until it expires), per
// instance until the fleet issue shares them. Bounded: expired ids are forgotten, and at the
// bound new redemptions are refused (fail closed) rather than the oldest live ids forgotten,
// which would reopen them to replay. Plain C++, time passed in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace gate::policy {

class jti_ledger {
public:
    static constexpr std::size_t default_capacity = 100'000;
    explicit jti_ledger(std::size_t capacity = default_capacity) : capacity_(capacity) {}

    enum class redemption { first, replayed, full };
    // Records `jti` (of `issuer`) as redeemed until `expires` (seconds since the epoch).
    redemption redeem(const std::string& issuer, const std::string& jti, std::int64_t expires,
                      std::int64_t now);
    std::size_t size() const { return live_.size(); }

private:
    void forget_expired(std::int64_t now);

    std::size_t capacity_;
    std::map<std::pair<std::string, std::string>, std::int64_t> live_;
    std::set<std::pair<std::int64_t, std::pair<std::string, std::string>>> by_expiry_;
};

} // namespace gate::policy
