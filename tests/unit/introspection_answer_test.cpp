// RFC 7662 answers about opaque inbound tokens (protocol/oauth/introspection_answer): who a
// token stands for and how long that is believed, and every reason one is refused.
#include "protocol/oauth/introspection_answer.hpp"

#include <gtest/gtest.h>

using namespace gate::protocol::oauth;

namespace {

constexpr std::int64_t now = 1'800'000'000;
const introspection_rules rules{"https://gate.example/mcp", std::nullopt,
                                "https://as.example/introspect", 60};

std::string refusal_of(unsigned status, std::string_view body,
                       const introspection_rules& r = rules) {
    auto got = read_introspection(status, body, r, now);
    auto* no = std::get_if<introspection_refusal>(&got);
    return no ? no->why : "(accepted)";
}

} // namespace

TEST(introspection_answer, an_active_token_for_this_resource_names_its_subject_and_issuer) {
    auto got = read_introspection(
        200,
        R"({"active":true,"sub":"alice","iss":"https://as.example","aud":["x","https://gate.example/mcp"],"scope":"files:read","exp":1800000030})",
        rules, now);
    auto* yes = std::get_if<introspected>(&got);
    ASSERT_TRUE(yes);
    EXPECT_EQ(yes->subject, "alice");
    EXPECT_EQ(yes->issuer, "https://as.example");
    EXPECT_EQ(yes->claims.at("scope").as_string(), "files:read");
    EXPECT_EQ(yes->believed_until, now + 30); // its exp comes before the cache bound
}

TEST(introspection_answer,
     believed_at_most_the_configured_bound_and_named_by_the_configured_issuer) {
    auto r = rules;
    r.issuer = "https://idp.example";
    auto got = read_introspection(
        200, R"({"active":true,"client_id":"robot","aud":"https://gate.example/mcp"})", r, now);
    auto* yes = std::get_if<introspected>(&got);
    ASSERT_TRUE(yes);
    EXPECT_EQ(yes->subject, "robot"); // a client's own token names the client
    EXPECT_EQ(yes->issuer, "https://idp.example");
    EXPECT_EQ(yes->believed_until, now + 60);
    r.issuer.reset();
    got = read_introspection(200, R"({"active":true,"sub":"a","aud":"https://gate.example/mcp"})",
                             r, now);
    EXPECT_EQ(std::get<introspected>(got).issuer, "https://as.example/introspect");
}

TEST(introspection_answer, every_refusal_says_why_and_whether_the_endpoint_decided) {
    EXPECT_EQ(refusal_of(200, R"({"active":false})"),
              "the token is not active (its issuer's introspection endpoint says so)");
    EXPECT_EQ(refusal_of(200, R"({"active":"true","sub":"a","aud":"https://gate.example/mcp"})"),
              "the token is not active (its issuer's introspection endpoint says so)");
    EXPECT_EQ(
        refusal_of(
            200, R"({"active":true,"sub":"a","aud":"https://gate.example/mcp","exp":1799999000})"),
        "the token has expired");
    EXPECT_NE(refusal_of(200, R"({"active":true,"sub":"a","aud":"https://other.example/mcp"})")
                  .find("is not for this resource"),
              std::string::npos);
    EXPECT_NE(refusal_of(200, R"({"active":true,"sub":"a"})").find("is not for this resource"),
              std::string::npos);
    EXPECT_EQ(refusal_of(200, R"({"active":true,"sub":"","aud":"https://gate.example/mcp"})"),
              "the token names nobody (no sub and no client_id)");
    auto r = rules;
    r.issuer = "https://idp.example";
    EXPECT_EQ(
        refusal_of(
            200,
            R"({"active":true,"sub":"a","iss":"https://evil.example","aud":"https://gate.example/mcp"})",
            r),
        "the token's issuer https://evil.example is not https://idp.example");
    // The endpoint failing is no verdict on the token: not remembered.
    auto failed = read_introspection(503, "", rules, now);
    EXPECT_FALSE(std::get<introspection_refusal>(failed).definite);
    EXPECT_EQ(std::get<introspection_refusal>(failed).why,
              "the introspection endpoint answered HTTP 503");
    EXPECT_FALSE(
        std::get<introspection_refusal>(read_introspection(200, "[1]", rules, now)).definite);
    EXPECT_TRUE(
        std::get<introspection_refusal>(read_introspection(200, R"({"active":false})", rules, now))
            .definite);
}
