// A token endpoint's answer (RFC 6749 section 5), read as plain C++ on outside input: the
// Bearer token, how long it lives, and the refresh token and scope when given; or why it is
// not usable (an error status with its `error` code, no token, a token that cannot go in a
// header, another token type). No token text ever reaches the reason.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace gate::protocol::oauth {

struct issued_token {
    std::string access_token;
    std::optional<std::chrono::seconds> expires_in; // absent: the endpoint did not say
    std::string refresh_token;                      // empty: none issued
    std::optional<std::string> scope;               // absent: as asked (RFC 6749 5.1)
};

struct token_refusal {
    std::string why;
    std::string error; // the endpoint's `error` code, when it gave one (invalid_grant, ...)
};

std::variant<issued_token, token_refusal> read_token_answer(unsigned status, std::string_view body);

// Whether `s` can be sent in an HTTP header field as it is.
bool header_safe(std::string_view s);

} // namespace gate::protocol::oauth
