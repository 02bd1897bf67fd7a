// A token request to gate's token endpoint (auth.ema, RFC 7523 jwt-bearer grant) as its form
// body is read: RFC 6749's form rules (a repeated parameter is invalid), the grant type, the
// assertion. What comes back refused carries RFC 6749's error code and why. Plain C++ on
// outside input (fuzzed: tests/fuzz/token_request_fuzz.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::protocol {

inline constexpr std::string_view jwt_bearer_grant = "urn:ietf:params:oauth:grant-type:jwt-bearer";

struct token_request {
    std::string assertion;                          // the ID-JAG, a compact JWS (not yet verified)
    std::optional<std::string> client_id;           // as sent
    std::optional<std::vector<std::string>> scopes; // `scope`, split on spaces; absent: none asked
};

struct token_request_refusal {
    std::string error; // invalid_request | unsupported_grant_type
    std::string why;
};

std::variant<token_request, token_request_refusal> read_token_request(std::string_view form);

} // namespace gate::protocol
