// When a JWT is valid (RFC 7519 sections 4.1.4-4.1.6): `exp` required, `nbf` and `iat` when
// present, each with the clock leeway. Shared by access tokens and ID-JAG assertions.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gate::protocol::jose {

// Clock skew tolerated on exp, nbf and iat (docs/security.md).
inline constexpr std::int64_t clock_leeway_seconds = 60;

// The latest NumericDate read as one: 9999-12-31T23:59:59Z. Past it (or not finite) a claim
// is not a date, so every date converts to a whole number of seconds without overflow.
inline constexpr std::int64_t latest_numeric_date = 253402300799;

// A NumericDate claim, or nullopt when absent, not a number, or not a date (above).
std::optional<double> numeric_date(const boost::json::object& claims, std::string_view member);

// Why the JWT is not valid at `now_unix` (`what` names it: "token", "assertion"), or nullopt.
std::optional<std::string> lifetime_problem(const boost::json::object& claims,
                                            std::string_view what, std::int64_t now_unix);

} // namespace gate::protocol::jose
