// The token endpoint's form (protocol/token_request): RFC 6749's rules, the jwt-bearer grant,
// the assertion, client_id and scope as sent.
#include "protocol/token_request.hpp"

#include <gtest/gtest.h>

using namespace gate::protocol;

namespace {
const std::string grant = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer";
token_request_refusal refused(std::string_view body) {
    return std::get<token_request_refusal>(read_token_request(body));
}
} // namespace

TEST(token_request, reads_the_assertion_client_and_scopes) {
    auto r = std::get<token_request>(
        read_token_request(grant + "&assertion=a.b.c&client_id=c%201&scope=read+write++admin"));
    EXPECT_EQ(r.assertion, "a.b.c");
    EXPECT_EQ(r.client_id, "c 1");
    EXPECT_EQ(r.scopes, (std::vector<std::string>{"read", "write", "admin"}));
    auto bare = std::get<token_request>(read_token_request(grant + "&assertion=x"));
    EXPECT_FALSE(bare.client_id);
    EXPECT_FALSE(bare.scopes);
}

TEST(token_request, refusals_carry_the_rfc_6749_code_and_why) {
    auto repeated = refused(grant + "&assertion=a&assertion=b");
    EXPECT_EQ(repeated.error, "invalid_request");
    EXPECT_EQ(repeated.why, "the parameter assertion is repeated");
    auto other = refused("grant_type=password&assertion=a");
    EXPECT_EQ(other.error, "unsupported_grant_type");
    EXPECT_EQ(other.why, "grant_type must be urn:ietf:params:oauth:grant-type:jwt-bearer");
    EXPECT_EQ(refused(grant).why, "the assertion parameter (the ID-JAG) is missing");
    EXPECT_EQ(refused(grant + "&assertion=").error, "invalid_request");
    EXPECT_EQ(refused(grant + std::string("&assertion=a\0b", 14)).why,
              "the token request's form cannot be read");
}
