#include "protocol/jose/lifetime.hpp"

namespace gate::protocol::jose {

std::optional<double> numeric_date(const boost::json::object& claims, std::string_view member) {
    const auto* v = claims.if_contains(member);
    if (!v)
        return std::nullopt;
    if (v->is_int64())
        return static_cast<double>(v->get_int64());
    if (v->is_uint64())
        return static_cast<double>(v->get_uint64());
    if (v->is_double())
        return v->get_double();
    return std::nullopt;
}

std::optional<std::string> lifetime_problem(const boost::json::object& claims,
                                            std::string_view what, std::int64_t now_unix) {
    auto the = "the " + std::string(what);
    auto now = static_cast<double>(now_unix);
    auto leeway = static_cast<double>(clock_leeway_seconds);
    auto exp = numeric_date(claims, "exp");
    if (!exp)
        return the + " has no expiry (exp)";
    if (now >= *exp + leeway)
        return the + " has expired";
    if (claims.contains("nbf")) {
        auto nbf = numeric_date(claims, "nbf");
        if (!nbf)
            return the + "'s nbf is not a number";
        if (now + leeway < *nbf)
            return the + " is not valid yet (nbf)";
    }
    if (claims.contains("iat")) {
        auto iat = numeric_date(claims, "iat");
        if (!iat)
            return the + "'s iat is not a number";
        if (now + leeway < *iat)
            return the + " was issued in the future (iat)";
    }
    return std::nullopt;
}

} // namespace gate::protocol::jose
