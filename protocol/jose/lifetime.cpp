#include "protocol/jose/lifetime.hpp"

#include <cmath>

namespace gate::protocol::jose {

std::optional<double> numeric_date(const boost::json::object& claims, std::string_view member) {
    const auto* v = claims.if_contains(member);
    if (!v)
        return std::nullopt;
    double date = 0;
    if (v->is_int64())
        date = static_cast<double>(v->get_int64());
    else if (v->is_uint64())
        date = static_cast<double>(v->get_uint64());
    else if (v->is_double())
        date = v->get_double();
    else
        return std::nullopt;
    // 1e999 reads as infinity: a date past any clock, and no whole number of seconds.
    if (!std::isfinite(date) || std::abs(date) > static_cast<double>(latest_numeric_date))
        return std::nullopt;
    return date;
}

std::optional<std::string> lifetime_problem(const boost::json::object& claims,
                                            std::string_view what, std::int64_t now_unix) {
    auto the = "the " + std::string(what);
    auto now = static_cast<double>(now_unix);
    auto leeway = static_cast<double>(clock_leeway_seconds);
    auto exp = numeric_date(claims, "exp");
    if (!exp && claims.contains("exp"))
        return the + "'s exp is not a date";
    if (!exp)
        return the + " has no expiry (exp)";
    if (now >= *exp + leeway)
        return the + " has expired";
    if (claims.contains("nbf")) {
        auto nbf = numeric_date(claims, "nbf");
        if (!nbf)
            return the + "'s nbf is not a date";
        if (now + leeway < *nbf)
            return the + " is not valid yet (nbf)";
    }
    if (claims.contains("iat")) {
        auto iat = numeric_date(claims, "iat");
        if (!iat)
            return the + "'s iat is not a date";
        if (now + leeway < *iat)
            return the + " was issued in the future (iat)";
    }
    return std::nullopt;
}

} // namespace gate::protocol::jose
