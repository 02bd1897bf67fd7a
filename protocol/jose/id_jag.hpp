// The identity assertion a client redeems at the gateway's token endpoint (auth.ema): an
// ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant, as the MCP enterprise-managed
// authorization extension profiles it), checked after its signature. Time passed in.
#pragma once

#include "protocol/jose/access_token.hpp"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace gate::protocol::jose {

struct id_jag_rules {
    std::string idp_issuer;       // auth.ema.idpIssuer
    std::vector<std::string> aud; // what the audience may be: the gateway's issuer, its resource
    std::string resource;         // auth.resource: the `resource` claim, when present
};

struct verified_assertion {
    std::string subject;
    std::string jti;
    std::int64_t expires = 0; // exp, seconds since the epoch
    std::string client_id;    // empty when the assertion names none
    std::vector<std::string> scopes;
    boost::json::object claims;
};

std::variant<verified_assertion, std::string>
check_id_jag(const compact_jws& jws, const id_jag_rules& rules, std::int64_t now_unix);

} // namespace gate::protocol::jose
