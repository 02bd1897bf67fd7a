#include "policy/jti_ledger.hpp"

namespace gate::policy {

void jti_ledger::forget_expired(std::int64_t now) {
    while (!by_expiry_.empty() && by_expiry_.begin()->first < now) {
        live_.erase(by_expiry_.begin()->second);
        by_expiry_.erase(by_expiry_.begin());
    }
}

jti_ledger::redemption jti_ledger::redeem(const std::string& issuer, const std::string& jti,
                                          std::int64_t expires, std::int64_t now) {
    forget_expired(now);
    auto key = std::make_pair(issuer, jti);
    if (live_.contains(key))
        return redemption::replayed;
    if (live_.size() >= capacity_)
        return redemption::full;
    live_.emplace(key, expires);
    by_expiry_.emplace(expires, std::move(key));
    return redemption::first;
}

} // namespace gate::policy
