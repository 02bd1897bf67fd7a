// An RFC 7662 introspection endpoint's answer about a token gate cannot read itself (an opaque
// one): who it stands for and until when, or why it is not accepted. Plain C++, time passed
// in (seconds since the epoch). The rules beside RFC 7662's: the token must be for gate's own
// resource (`aud`, RFC 8707), alive (`exp` with the clock leeway), of the configured issuer
// when the answer names one, and name someone (`sub`, else the client it was issued to).
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace gate::protocol::oauth {

struct introspection_rules {
    std::string_view resource;              // gate's own: the audience required
    std::optional<std::string_view> issuer; // configured; else the answer's, else `endpoint`
    std::string_view endpoint;
    std::int64_t cache_seconds = 60;
};

struct introspected {
    std::string subject, issuer;
    boost::json::object claims; // the answer as it came (scope and the rest, for policy)
    std::int64_t believed_until = 0;
};

// Why a token is refused: `definite` when the endpoint said so (the answer may be remembered),
// not when the endpoint failed (asked again next time).
struct introspection_refusal {
    std::string why;
    bool definite = false;
};

std::variant<introspected, introspection_refusal>
read_introspection(unsigned status, std::string_view body, const introspection_rules& rules,
                   std::int64_t now);

} // namespace gate::protocol::oauth
