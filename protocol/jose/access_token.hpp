// The claims of an access token presented to gate (spec: Authentication, Inbound), checked
// after its signature: issuer, audience, subject, lifetime and type. Time is passed in.
#pragma once

#include "protocol/jose/jws.hpp"
#include "protocol/jose/lifetime.hpp"

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::protocol::jose {

struct token_rules {
    std::string issuer;       // the trusted issuer the token must name
    std::string audience;     // auth.resource
    std::string groups_claim; // empty: the issuer carries no groups
};

struct verified_token {
    std::string subject;
    std::string issuer;
    std::vector<std::string> groups;
    boost::json::object claims;
};

// The issuer a token names, read before its signature is checked: it only picks which trusted
// issuer (and key set) to check the token against.
std::optional<std::string> claimed_issuer(const compact_jws& jws);

// The principal a signature-checked token carries, or why it is refused.
std::variant<verified_token, std::string>
check_claims(const compact_jws& jws, const token_rules& rules, std::int64_t now_unix);

} // namespace gate::protocol::jose
