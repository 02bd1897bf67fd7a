// PKCE (RFC 7636) as gate uses it as an OAuth client: a fresh verifier of 32 random bytes
// (43 base64url characters) and its S256 challenge, the only method MCP allows.
#pragma once

#include <string>
#include <string_view>

namespace gate::protocol::oauth {

struct pkce_pair {
    std::string verifier;
    std::string challenge; // BASE64URL(SHA256(verifier))
};

pkce_pair make_pkce();
std::string s256_challenge(std::string_view verifier);

} // namespace gate::protocol::oauth
