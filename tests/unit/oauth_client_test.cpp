// gate as an OAuth client of an upstream's authorization server (protocol/oauth): PKCE,
// where metadata is looked for, what is accepted of it, a Bearer challenge, the authorization
// request's URL, a token endpoint's answer and the form posted to it.
#include "protocol/oauth/metadata.hpp"
#include "protocol/oauth/pkce.hpp"
#include "protocol/oauth/token_answer.hpp"
#include "protocol/oauth/token_form.hpp"

#include <gtest/gtest.h>

namespace oauth = gate::protocol::oauth;

TEST(oauth_pkce, the_s256_challenge_is_rfc_7636s_example) {
    EXPECT_EQ(oauth::s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
              "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
}

TEST(oauth_pkce, each_verifier_is_fresh_and_43_characters) {
    auto a = oauth::make_pkce(), b = oauth::make_pkce();
    EXPECT_EQ(a.verifier.size(), 43u);
    EXPECT_NE(a.verifier, b.verifier);
    EXPECT_EQ(a.challenge, oauth::s256_challenge(a.verifier));
}

TEST(oauth_metadata, the_resource_metadata_is_looked_for_with_the_path_then_at_the_root) {
    EXPECT_EQ(oauth::resource_metadata_urls("https://mcp.example:8443/v1/mcp/"),
              (std::vector<std::string>{
                  "https://mcp.example:8443/.well-known/oauth-protected-resource/v1/mcp",
                  "https://mcp.example:8443/.well-known/oauth-protected-resource"}));
    EXPECT_EQ(
        oauth::resource_metadata_urls("http://127.0.0.1:9"),
        (std::vector<std::string>{"http://127.0.0.1:9/.well-known/oauth-protected-resource"}));
    EXPECT_TRUE(oauth::resource_metadata_urls("ftp://x/y").empty());
}

TEST(oauth_metadata, an_issuer_with_a_path_is_asked_three_ways) {
    EXPECT_EQ(oauth::server_metadata_urls("https://as.example/tenant1"),
              (std::vector<std::string>{
                  "https://as.example/.well-known/oauth-authorization-server/tenant1",
                  "https://as.example/.well-known/openid-configuration/tenant1",
                  "https://as.example/tenant1/.well-known/openid-configuration"}));
    EXPECT_EQ(oauth::server_metadata_urls("https://as.example").size(), 2u);
}

TEST(oauth_metadata, the_resource_metadata_must_name_the_upstream) {
    auto doc = [](std::string resource) {
        return R"({"resource":")" + resource +
               R"(","authorization_servers":["https://as.example","javascript:x"]})";
    };
    auto ok =
        oauth::read_resource_metadata(doc("https://mcp.example/v1"), "https://mcp.example/v1/mcp");
    ASSERT_TRUE(std::holds_alternative<oauth::resource_metadata>(ok));
    EXPECT_EQ(std::get<oauth::resource_metadata>(ok).authorization_servers,
              std::vector<std::string>{"https://as.example"}); // not an http(s) URL: left out
    for (auto foreign : {"https://mcp.example/v1x", "https://evil.example/v1/mcp",
                         "http://mcp.example/v1/mcp", "https://mcp.example/v1/mcp/more"}) {
        auto r = oauth::read_resource_metadata(doc(foreign), "https://mcp.example/v1/mcp");
        ASSERT_TRUE(std::holds_alternative<std::string>(r)) << foreign;
        EXPECT_NE(std::get<std::string>(r).find("not the upstream's URL"), std::string::npos);
    }
    auto none = oauth::read_resource_metadata(
        R"({"resource":"https://mcp.example/v1/mcp","authorization_servers":[]})",
        "https://mcp.example/v1/mcp");
    EXPECT_EQ(std::get<std::string>(none),
              "the protected resource metadata names no authorization server");
    EXPECT_TRUE(
        std::holds_alternative<std::string>(oauth::read_resource_metadata("[]", "https://x/")));
}

TEST(oauth_metadata, the_server_metadata_must_be_the_issuers_and_offer_s256) {
    auto doc = [](std::string issuer, std::string methods,
                  std::string token = "https://as.example/token") {
        return R"({"issuer":")" + issuer +
               R"(","authorization_endpoint":"https://as.example/auth",)"
               R"("token_endpoint":")" +
               token + R"(","code_challenge_methods_supported":)" + methods +
               R"(,"authorization_response_iss_parameter_supported":true})";
    };
    auto ok = oauth::read_server_metadata(doc("https://as.example", R"(["plain","S256"])"),
                                          "https://as.example");
    ASSERT_TRUE(std::holds_alternative<oauth::server_metadata>(ok));
    EXPECT_TRUE(std::get<oauth::server_metadata>(ok).iss_parameter_supported);
    EXPECT_TRUE(std::get<oauth::server_metadata>(ok).registration_endpoint.empty());
    auto mixup = oauth::read_server_metadata(doc("https://evil.example", R"(["S256"])"),
                                             "https://as.example");
    EXPECT_NE(std::get<std::string>(mixup).find("not the one it was fetched for"),
              std::string::npos);
    auto plain = oauth::read_server_metadata(doc("https://as.example", R"(["plain"])"),
                                             "https://as.example");
    EXPECT_NE(std::get<std::string>(plain).find("S256"), std::string::npos);
    auto absent =
        oauth::read_server_metadata(doc("https://as.example", "null"), "https://as.example");
    EXPECT_TRUE(std::holds_alternative<std::string>(absent));
    EXPECT_TRUE(std::get<oauth::server_metadata>(ok).revocation_endpoint.empty());
    auto with_revocation = [&](std::string endpoint) {
        auto text = doc("https://as.example", R"(["S256"])");
        text.insert(1, R"("revocation_endpoint":")" + endpoint + "\",");
        return std::get<oauth::server_metadata>(
                   oauth::read_server_metadata(text, "https://as.example"))
            .revocation_endpoint;
    };
    EXPECT_EQ(with_revocation("https://as.example/revoke"), "https://as.example/revoke");
    EXPECT_EQ(with_revocation("javascript:alert(1)"), ""); // unusable: revoked nowhere
    auto bad = oauth::read_server_metadata(
        doc("https://as.example", R"(["S256"])", "file:///etc/passwd"), "https://as.example");
    EXPECT_TRUE(std::holds_alternative<std::string>(bad));
}

TEST(oauth_metadata, a_bearer_challenge_is_read_with_quotes_and_escapes) {
    auto c = oauth::read_bearer_challenge(
        R"(Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://m.example/.well-known/oauth-protected-resource", realm="a\"b")");
    EXPECT_EQ(c.error, "insufficient_scope");
    EXPECT_EQ(c.scope, "files:read files:write");
    EXPECT_EQ(c.resource_metadata, "https://m.example/.well-known/oauth-protected-resource");
    EXPECT_TRUE(oauth::read_bearer_challenge(R"(Basic realm="x", scope="y")").scope.empty());
    EXPECT_EQ(oauth::read_bearer_challenge("bearer scope=files").scope, "files");
    EXPECT_TRUE(oauth::read_bearer_challenge(R"(Bearer scope="unterminated)").error.empty());
}

TEST(oauth_metadata, the_authorization_url_keeps_the_endpoints_query_and_encodes_each_value) {
    auto url = oauth::authorization_url("https://as.example/auth?tenant=1",
                                        {"gate client", "https://gate.example/oauth/callback",
                                         "a b", "st&ate", "ch", "https://mcp.example/mcp"});
    EXPECT_EQ(url,
              "https://as.example/auth?tenant=1&response_type=code&client_id=gate%20client"
              "&redirect_uri=https://gate.example/oauth/callback&scope=a%20b&state=st%26ate"
              "&code_challenge=ch&code_challenge_method=S256&resource=https://mcp.example/mcp");
}

TEST(oauth_token_answer, a_token_its_lifetime_refresh_token_and_scope_are_read) {
    auto t = oauth::read_token_answer(
        200,
        R"({"access_token":"at","token_type":"bearer","expires_in":3600.7,"refresh_token":"rt","scope":"a"})");
    auto& issued = std::get<oauth::issued_token>(t);
    EXPECT_EQ(issued.access_token, "at");
    EXPECT_EQ(issued.expires_in, std::chrono::seconds(3600));
    EXPECT_EQ(issued.refresh_token, "rt");
    EXPECT_EQ(issued.scope, "a");
    auto no_life = oauth::read_token_answer(200, R"({"access_token":"at","expires_in":-5})");
    EXPECT_FALSE(std::get<oauth::issued_token>(no_life).expires_in.has_value());
}

TEST(oauth_token_answer, what_cannot_be_used_says_why_and_never_the_token) {
    auto refused = oauth::read_token_answer(400, R"({"error":"invalid_grant"})");
    EXPECT_EQ(std::get<oauth::token_refusal>(refused).error, "invalid_grant");
    EXPECT_EQ(std::get<oauth::token_refusal>(refused).why,
              "the token endpoint answered HTTP 400 (invalid_grant)");
    auto hostile = oauth::read_token_answer(400, R"({"error":"x\r\nSet-Cookie: a"})");
    EXPECT_TRUE(std::get<oauth::token_refusal>(hostile).error.empty());
    auto split = oauth::read_token_answer(200, R"({"access_token":"secret\r\nX: y"})");
    EXPECT_EQ(std::get<oauth::token_refusal>(split).why.find("secret"), std::string::npos);
    auto mac = oauth::read_token_answer(200, R"({"access_token":"at","token_type":"mac"})");
    EXPECT_TRUE(std::holds_alternative<oauth::token_refusal>(mac));
    auto bad_refresh =
        oauth::read_token_answer(200, R"({"access_token":"at","refresh_token":"r\nx"})");
    EXPECT_TRUE(std::get<oauth::issued_token>(bad_refresh).refresh_token.empty());
}

TEST(oauth_token_form, each_client_authentication_is_written_as_its_method_says) {
    oauth::token_form basic;
    basic.add("grant_type", "authorization_code")
        .authenticate({"id:1", "s e", "client_secret_basic"});
    EXPECT_EQ(basic.body, "grant_type=authorization_code");
    ASSERT_EQ(basic.headers.size(), 1u);
    EXPECT_EQ(basic.headers[0].second, "Basic aWQlM0ExOnMlMjBl"); // "id%3A1:s%20e"
    oauth::token_form post;
    post.add("code", "a&b").authenticate({"id", "sec", "client_secret_post"});
    EXPECT_EQ(post.body, "code=a%26b&client_id=id&client_secret=sec");
    oauth::token_form open;
    open.authenticate({"pub", "", "none"});
    EXPECT_EQ(open.body, "client_id=pub");
    EXPECT_TRUE(open.headers.empty());
}

TEST(oauth_token_form, a_scope_list_is_scope_tokens_one_space_apart) {
    using namespace gate::protocol::oauth;
    EXPECT_TRUE(is_scope_list("files:read"));
    EXPECT_TRUE(is_scope_list("mcp:basic mcp:write"));
    EXPECT_FALSE(is_scope_list(""));
    EXPECT_FALSE(is_scope_list("a  b"));
    EXPECT_FALSE(is_scope_list("a "));
    EXPECT_FALSE(is_scope_list("a\"b"));
    EXPECT_FALSE(is_scope_list("a\nb"));
    EXPECT_FALSE(is_scope_list(std::string(1025, 'a')));
}

TEST(oauth_token_form, a_step_up_asks_for_what_is_held_and_what_is_lacking) {
    using namespace gate::protocol::oauth;
    EXPECT_EQ(scope_union("mcp:basic", "mcp:write"), "mcp:basic mcp:write");
    EXPECT_EQ(scope_union("a b", "b c a"), "a b c");
    EXPECT_EQ(scope_union("", "x"), "x");
    EXPECT_EQ(scope_union("x", ""), "x");
    EXPECT_EQ(scope_union("", ""), "");
}
