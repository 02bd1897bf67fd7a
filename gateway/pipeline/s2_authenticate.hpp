// Stage 2, authenticate (s2_authenticate.cpp), and what it asks of the gateway: the verdict on
// a request's Bearer token. Without a checker (auth.mode "disabled") every caller is anonymous.
#pragma once

#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/stage.hpp"

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace gate::gateway {

struct auth_refusal {
    // RFC 6750 section 3.1: invalid_request (malformed or misplaced), invalid_token; empty
    // when no token was sent at all (the challenge then carries no error).
    std::string error;
    std::string description;
};

} // namespace gate::gateway

namespace gate::gateway::pipeline {

// The verdict on a request's Bearer token (gateway/auth/token_authenticator implements it).
class authenticate_services {
public:
    using result = std::variant<policy::caller_ref, auth_refusal>;
    // `authorization`: the Authorization header, if sent; `query_token`: whether the target
    // carried an access_token parameter. The result where it needs no verification (a token
    // verified moments ago, a request refused on its header alone); nullopt: verify.
    virtual std::optional<result> authenticate_now(std::optional<std::string_view> authorization,
                                                   bool query_token) = 0;
    virtual boost::asio::awaitable<result>
    authenticate(std::optional<std::string_view> authorization, bool query_token) = 0;

protected:
    ~authenticate_services() = default;
};

// `tokens`: null with auth.mode "disabled". `resource_metadata`: the URL a 401's challenge
// points at (RFC 9728).
std::unique_ptr<stage> make_authenticate(authenticate_services* tokens,
                                         std::string resource_metadata);

} // namespace gate::gateway::pipeline
