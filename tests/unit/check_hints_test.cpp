// gate check's hints and redaction (gateway/program/check_hints): what an operator is told for
// each kind of failure, and no URL's credentials in anything printed.
#include "gateway/program/check_hints.hpp"

#include <gtest/gtest.h>

namespace {

using namespace gate::gateway::program::check;
using std::chrono::milliseconds;

constexpr milliseconds bound{5000};

TEST(CheckHints, UserinfoIsNeverShown) {
    EXPECT_EQ(gate::gateway::program::check::without_userinfo("https://user:pw@host:8443/mcp"),
              "https://***@host:8443/mcp");
    EXPECT_EQ(gate::gateway::program::check::without_userinfo("redis://:pw@127.0.0.1:6379/0"),
              "redis://***@127.0.0.1:6379/0");
    EXPECT_EQ(gate::gateway::program::check::without_userinfo("http://host/a@b"),
              "http://host/a@b"); // an @ in the path
    EXPECT_EQ(gate::gateway::program::check::without_userinfo("http://host:1/mcp"),
              "http://host:1/mcp");
    EXPECT_EQ(gate::gateway::program::check::without_userinfo("not a url"), "not a url");
    EXPECT_EQ(scrubbed("connect to redis://u:secret@h:1/0 failed; http://x/y: refused"),
              "connect to redis://***@h:1/0 failed; http://x/y: refused");
    EXPECT_EQ(scrubbed("no url here"), "no url here");
    EXPECT_EQ(scrubbed("\"https://a:b@c/d\" and https://e:f@g"),
              "\"https://***@c/d\" and https://***@g");
}

TEST(CheckHints, NetworkFailuresReadAlikeForEveryPeer) {
    auto at = "http://127.0.0.1:9/mcp";
    EXPECT_EQ(gate::gateway::program::check::network_hint("cannot connect: Connection refused", at,
                                                          "the upstream", bound),
              "connection refused: is the upstream running at http://127.0.0.1:9/mcp?");
    EXPECT_NE(gate::gateway::program::check::network_hint(
                  "cannot resolve x: Host not found (authoritative)", at, "it", bound)
                  .find("does not resolve"),
              std::string::npos);
    EXPECT_NE(gate::gateway::program::check::network_hint(
                  "TLS handshake failed: certificate verify failed", at, "it", bound)
                  .find("TLS: certificate not trusted"),
              std::string::npos);
    EXPECT_NE(gate::gateway::program::check::network_hint(
                  "TLS handshake failed: wrong version number", at, "it", bound)
                  .find("is it an https:// server"),
              std::string::npos);
    EXPECT_NE(gate::gateway::program::check::network_hint("upstream did not answer within 300 ms",
                                                          at, "it", milliseconds(300))
                  .find("no answer within 300 ms"),
              std::string::npos);
    EXPECT_EQ(gate::gateway::program::check::network_hint("something else", at, "it", bound), "");
}

TEST(CheckHints, AnUpstreamsHintNamesItsCredential) {
    gate::config::upstream u;
    u.auth.strategy = "static";
    u.auth.secret_ref = "CRM_KEY";
    u.auth.header = "X-Api-Key";
    auto h = upstream_hint(u, "http://u/mcp", failure::status, 401, "HTTP 401", bound);
    EXPECT_EQ(h, "HTTP 401: the upstream refused the credential: check the secret in env CRM_KEY "
                 "(sent in X-Api-Key)");
    u.auth = {};
    u.auth.strategy = "client-credentials";
    u.auth.token_endpoint = "https://idp/token";
    u.auth.client_auth_ = gate::config::client_auth{"client_secret_post", "CC_SECRET"};
    h = upstream_hint(u, "http://u/mcp", failure::credential, 0, "token endpoint failed", bound);
    EXPECT_NE(h.find("https://idp/token"), std::string::npos);
    EXPECT_NE(h.find("CC_SECRET"), std::string::npos);
    u.auth = {};
    EXPECT_NE(upstream_hint(u, "http://u/mcp", failure::status, 401, "", bound)
                  .find("wants a credential"),
              std::string::npos);
    EXPECT_NE(upstream_hint(u, "http://u/x", failure::status, 404, "", bound).find("/mcp"),
              std::string::npos);
    EXPECT_NE(upstream_hint(u, "http://u/mcp", failure::content, 200, "", bound)
                  .find("not as an MCP server"),
              std::string::npos);
}

TEST(CheckHints, AChallengesSchemesAreItsFirstWords) {
    using schemes = std::vector<std::string>;
    // The SDK's bearer middleware: one scheme, its parameters (a comma inside a quoted one).
    EXPECT_EQ(gate::gateway::program::check::challenge_schemes(
                  R"(Bearer error="invalid_token", error_description="Missing )"
                  R"(bearer, Basic", resource_metadata="https://r/.well-known/x")"),
              schemes{"Bearer"});
    EXPECT_EQ(gate::gateway::program::check::challenge_schemes(R"(Basic realm="corp", Bearer)"),
              (schemes{"Basic", "Bearer"}));
    EXPECT_EQ(
        gate::gateway::program::check::challenge_schemes("Digest realm=example, qop=\"auth\""),
        schemes{"Digest"});
    EXPECT_EQ(gate::gateway::program::check::challenge_schemes("Negotiate abc123"),
              schemes{"Negotiate"})
        << "a token68";
    EXPECT_EQ(gate::gateway::program::check::challenge_schemes("Negotiate abc123=="),
              schemes{"Negotiate"});
    EXPECT_EQ(gate::gateway::program::check::challenge_schemes("Bearer realm=a\"b"),
              schemes{"Bearer"});
    EXPECT_TRUE(gate::gateway::program::check::challenge_schemes("").empty());
}

TEST(CheckHints, APerCallerUpstreamIsJudgedByItsAnswerWithoutACredential) {
    gate::config::upstream u;
    u.auth.strategy = "passthrough";
    auto at = "http://u/mcp";
    auto has = [](const std::string& text, std::string_view part) {
        return text.find(part) != std::string::npos;
    };
    // A 401 or 403 asking for a Bearer token, or naming no scheme: reachable, as expected.
    auto v = gate::gateway::program::check::judge_per_caller(
        u, at, 401, R"(Bearer resource_metadata="https://r/x")", "", bound);
    EXPECT_TRUE(v.up);
    EXPECT_TRUE(has(v.detail, "asks for a caller's credential")) << v.detail;
    EXPECT_TRUE(
        has(v.detail, R"(HTTP 401 with WWW-Authenticate: Bearer resource_metadata="https://r/x")"));
    EXPECT_TRUE(has(v.unchecked, "whether the upstream accepts a caller's token")) << v.unchecked;
    v = gate::gateway::program::check::judge_per_caller(u, at, 403, "", "", bound);
    EXPECT_TRUE(v.up);
    EXPECT_TRUE(has(v.detail, "HTTP 403 with no WWW-Authenticate challenge")) << v.detail;
    // A challenge a caller's Bearer token can never answer.
    v = gate::gateway::program::check::judge_per_caller(u, at, 401, R"(Basic realm="corp")", "",
                                                        bound);
    EXPECT_FALSE(v.up);
    EXPECT_TRUE(has(v.hint, "it asks for Basic credentials")) << v.hint;
    EXPECT_TRUE(has(v.hint, "auth.strategy static")) << v.hint;
    // A handshake answered without any credential: reachable, and said.
    v = gate::gateway::program::check::judge_per_caller(u, at, 200, "", "srv 1.0, MCP 2025-11-25",
                                                        bound);
    EXPECT_TRUE(v.up);
    EXPECT_TRUE(has(v.detail, "answered by srv 1.0, MCP 2025-11-25 without any credential"));
    // Anything else is down with the upstream's hint.
    v = gate::gateway::program::check::judge_per_caller(u, at, 200, "", "", bound);
    EXPECT_FALSE(v.up);
    EXPECT_TRUE(has(v.hint, "not as an MCP server")) << v.hint;
    v = gate::gateway::program::check::judge_per_caller(u, at, 404, "", "", bound);
    EXPECT_FALSE(v.up);
    EXPECT_TRUE(has(v.hint, "HTTP 404")) << v.hint;
    u.auth.strategy = "token-exchange";
    u.auth.token_endpoint = "https://idp/token";
    EXPECT_TRUE(has(gate::gateway::program::check::per_caller_unchecked(u),
                    "the exchange of a caller's token at https://idp/token"));
}

TEST(CheckHints, ATokenEndpointIsJudgedByItsAnswerToARequestWithNothingToExchange) {
    gate::config::upstream u;
    u.auth.strategy = "token-exchange";
    u.auth.token_endpoint = "https://idp/token";
    u.auth.audience = "https://tools.example";
    u.auth.client_auth_ = gate::config::client_auth{"client_secret_post", "TX_SECRET"};
    auto at = "https://idp/token";
    auto has = [](const std::string& text, std::string_view part) {
        return text.find(part) != std::string::npos;
    };
    // Only the grant type: no client, no subject token, nothing that could be exchanged.
    EXPECT_EQ(gate::gateway::program::check::token_endpoint_probe_form(),
              "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange");
    // RFC 6749 section 5.2's errors, at 400 or 401: reachable.
    auto v = gate::gateway::program::check::judge_token_endpoint(u, at, 401,
                                                                 R"({"error":"invalid_client"})");
    EXPECT_TRUE(v.up);
    EXPECT_EQ(v.detail, "reachable, and it answers as an OAuth token endpoint: a token exchange "
                        "request with no client credentials and no token answered HTTP 401 "
                        "invalid_client");
    EXPECT_TRUE(v.hint.empty());
    v = gate::gateway::program::check::judge_token_endpoint(
        u, at, 400,
        R"({"error":"invalid_request","error_description":"Missing parameter: subject_token"})");
    EXPECT_TRUE(v.up);
    EXPECT_TRUE(has(v.detail, "HTTP 400 invalid_request (Missing parameter: subject_token)"))
        << v.detail;
    EXPECT_EQ(v.unchecked, "gate's client authentication there (auth.clientId, the secret in env "
                           "TX_SECRET) and the exchange of a caller's token for one with audience "
                           "https://tools.example: only a caller's own request through gate "
                           "tries them");
    // It says it does not exchange tokens.
    v = gate::gateway::program::check::judge_token_endpoint(
        u, at, 400, R"({"error":"unsupported_grant_type"})");
    EXPECT_FALSE(v.up);
    EXPECT_TRUE(has(v.hint, "it does not take token exchange (RFC 8693")) << v.hint;
    // Not an OAuth error: an error status with a page, a success, the wrong place, a failure.
    v = gate::gateway::program::check::judge_token_endpoint(u, at, 401, "<html>sign in</html>");
    EXPECT_FALSE(v.up);
    EXPECT_TRUE(has(v.detail, "answered HTTP 401 with no OAuth error in it")) << v.detail;
    EXPECT_TRUE(has(v.hint, "not an OAuth token endpoint's answer")) << v.hint;
    v = gate::gateway::program::check::judge_token_endpoint(u, at, 400,
                                                            R"({"message":"bad request"})");
    EXPECT_FALSE(v.up);
    v = gate::gateway::program::check::judge_token_endpoint(u, at, 403,
                                                            R"({"error":"access_denied"})");
    EXPECT_FALSE(v.up);
    v = gate::gateway::program::check::judge_token_endpoint(
        u, at, 200, R"({"access_token":"t","token_type":"Bearer"})");
    EXPECT_FALSE(v.up);
    EXPECT_TRUE(has(v.hint, "is https://idp/token the token endpoint")) << v.hint;
    v = gate::gateway::program::check::judge_token_endpoint(u, at, 404, "");
    EXPECT_FALSE(v.up);
    EXPECT_TRUE(has(v.hint, "HTTP 404: nothing is served at this path")) << v.hint;
    EXPECT_TRUE(has(v.hint, "token_endpoint in the identity provider's discovery document"));
    v = gate::gateway::program::check::judge_token_endpoint(u, at, 405, "");
    EXPECT_FALSE(v.up);
    EXPECT_TRUE(has(v.hint, "it does not take a POST")) << v.hint;
    v = gate::gateway::program::check::judge_token_endpoint(
        u, at, 503, R"({"error":"temporarily_unavailable"})");
    EXPECT_FALSE(v.up);
    EXPECT_TRUE(has(v.hint, "HTTP 503: it is failing")) << v.hint;
}

TEST(CheckHints, EachKindSaysWhatToFix) {
    EXPECT_NE(key_set_hint("http://idp/jwks", failure::content, 200, "", bound).find("JWK set"),
              std::string::npos);
    EXPECT_NE(key_set_hint("http://idp/jwks", failure::status, 404, "", bound).find("jwksUri"),
              std::string::npos);
    EXPECT_NE(store_hint("redis://h:1/0", "REDIS_URL", failure::content,
                         "WRONGPASS invalid username-password pair", bound)
                  .find("password in REDIS_URL"),
              std::string::npos);
    EXPECT_NE(receiver_hint(true, "http://c/v1/traces", failure::status, 404, "", bound)
                  .find("otlpEndpoint"),
              std::string::npos);
    EXPECT_NE(receiver_hint(false, "http://r/a", failure::status, 401, "", bound).find("headers"),
              std::string::npos);
    EXPECT_NE(
        receiver_hint(false, "http://r/a", failure::status, 400, "", bound).find("empty batch"),
        std::string::npos);
    gate::config::discovery d;
    d.url = "http://reg/r";
    d.bearer_secret_ref = "REG_TOKEN";
    EXPECT_NE(discovery_hint(d, failure::status, 401, "", bound).find("REG_TOKEN"),
              std::string::npos);
    EXPECT_NE(discovery_hint(d, failure::content, 200, "", bound).find("fix it at the source"),
              std::string::npos);
}

} // namespace
