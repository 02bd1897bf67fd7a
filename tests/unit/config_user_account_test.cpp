// upstreams[].auth with strategy user-account and server.publicUrl (docs/configuration.md):
// what is read, and every refusal with its pointer and a reason that says what to do.
#include "config/load.hpp"
#include "tests/unit/config_refusal.hpp"

#include <gtest/gtest.h>

using namespace gate::config;
using gate::config::testing::expect_refusal;

namespace {

std::string doc_with(std::string_view auth,
                     std::string_view server = R"({"publicUrl":"https://gate.example"})",
                     std::string_view mode = "required") {
    return R"({"auth":{"mode":")" + std::string(mode) +
           R"(","resource":"https://gate.example/mcp","issuers":[{"issuer":"https://idp.example"}]},)"
           R"("server":)" +
           std::string(server) +
           R"(,"upstreams":[{"id":"t","url":"https://tracker.example/mcp","namespace":"t","auth":)" +
           std::string(auth) + "}]}";
}

} // namespace

TEST(config_user_account, the_least_is_the_strategy_and_a_public_url) {
    auto r = parse(
        doc_with(R"({"strategy":"user-account"})", R"({"publicUrl":"https://gate.example/"})"),
        acceptance::specification);
    ASSERT_NE(r.doc, nullptr);
    EXPECT_EQ(r.doc->server.public_url, "https://gate.example");
    const auto& a = r.doc->upstreams[0].auth;
    EXPECT_EQ(a.strategy, "user-account");
    EXPECT_TRUE(a.client_id.empty());
    EXPECT_FALSE(a.authorization_server);
}

TEST(config_user_account, it_needs_verified_callers_and_a_public_url) {
    expect_refusal(doc_with(R"({"strategy":"user-account"})", "{}"), "/upstreams/0/auth/strategy",
                   "needs server.publicUrl");
    expect_refusal(doc_with(R"({"strategy":"user-account"})",
                            R"({"publicUrl":"https://gate.example"})", "disabled"),
                   "/upstreams/0/auth/strategy", "needs auth.mode \"required\"");
}

TEST(config_user_account, passthrough_is_refused_a_client_could_not_connect_to_be_sent_to_a_login) {
    auto text = doc_with(R"({"strategy":"user-account"})");
    auto at = text.find(R"("namespace":"t",)");
    text.erase(at, std::string_view(R"("namespace":"t",)").size());
    expect_refusal(text, "/upstreams/0/namespace", "a user-account upstream needs a namespace");
}

TEST(config_user_account, a_secret_without_a_client_and_fields_of_other_strategies_are_refused) {
    expect_refusal(
        doc_with(
            R"({"strategy":"user-account","clientAuth":{"type":"client_secret_post","secretRef":"S"}})"),
        "/upstreams/0/auth/clientAuth", "needs clientId");
    expect_refusal(
        doc_with(R"({"strategy":"user-account","tokenEndpoint":"https://as.example/token"})"),
        "/upstreams/0/auth/tokenEndpoint", "is not used by strategy \"user-account\"");
    expect_refusal(
        doc_with(
            R"({"strategy":"client-credentials","tokenEndpoint":"https://as.example/t","clientId":"c","clientAuth":{"type":"client_secret_post","secretRef":"S"},"authorizationServer":"https://as.example"})"),
        "/upstreams/0/auth/authorizationServer", "is not used by strategy");
}

TEST(config_user_account, the_authorization_server_and_public_url_must_be_what_they_say) {
    for (auto as :
         {R"("ftp://as.example")", R"("https://as.example/?x=1")", R"("https://u:p@as.example")"})
        expect_refusal(
            doc_with(std::string(R"({"strategy":"user-account","authorizationServer":)") + as +
                     "}"),
            "/upstreams/0/auth/authorizationServer", "is not an issuer URL");
    for (auto url : {R"("https://gate.example/login")", R"("https://gate.example?a=b")",
                     R"("gopher://g")", R"("https://u:p@gate.example")"})
        expect_refusal(
            doc_with(R"({"strategy":"user-account"})", std::string(R"({"publicUrl":)") + url + "}"),
            "/server/publicUrl", "must be");
}

TEST(config_user_account, an_operator_scope_is_a_scope_token_and_needs_an_account_to_revoke) {
    auto r = parse(
        doc_with(
            R"({"strategy":"user-account"})",
            R"({"publicUrl":"https://gate.example","vault":{"operatorScope":"gate:accounts"}})"),
        acceptance::specification);
    ASSERT_NE(r.doc, nullptr);
    EXPECT_EQ(r.doc->server.vault_operator_scope, "gate:accounts");
    EXPECT_FALSE(r.doc->server.vault_key_ref); // no shared store: the key is not required
    expect_refusal(
        doc_with(R"({"strategy":"user-account"})",
                 R"({"publicUrl":"https://gate.example","vault":{"operatorScope":"a b"}})"),
        "/server/vault/operatorScope", "is not an OAuth scope token");
    expect_refusal(
        doc_with(R"({"strategy":"none"})",
                 R"({"publicUrl":"https://gate.example","vault":{"operatorScope":"ops"}})"),
        "/server/vault/operatorScope", "no upstream's strategy is user-account");
    expect_refusal(
        doc_with(R"({"strategy":"user-account"})",
                 R"({"publicUrl":"https://gate.example","vault":{"previousKeyRef":"OLD"}})"),
        "/server/vault/keyRef", "is required beside previousKeyRef");
}

TEST(config_introspection, opaque_tokens_are_asked_about_at_a_configured_endpoint) {
    std::string base = R"({"upstreams":[{"id":"a","url":"https://a.example/mcp"}],)"
                       R"("auth":{"mode":"required","resource":"https://gate.example/mcp",)";
    auto r = parse(
        base +
            R"("introspection":{"url":"https://as.example/introspect","clientId":"gate",)"
            R"("clientAuth":{"type":"client_secret_basic","secretRef":"S"},"cacheSeconds":30}}})",
        acceptance::specification);
    ASSERT_NE(r.doc, nullptr) << (r.errors.empty() ? "" : r.errors[0].reason);
    ASSERT_TRUE(r.doc->auth.introspection);
    EXPECT_EQ(r.doc->auth.introspection->client_id, "gate");
    EXPECT_EQ(r.doc->auth.introspection->cache_seconds, 30);
    EXPECT_TRUE(r.doc->auth.issuers.empty()); // introspection alone is enough
    expect_refusal(base +
                       R"("introspection":{"url":"http://as.example/introspect","clientId":"gate",)"
                       R"("clientAuth":{"type":"client_secret_basic","secretRef":"S"}}}})",
                   "/auth/introspection/url", "https");
    expect_refusal(
        base +
            R"("introspection":{"url":"https://as.example/i","clientId":"gate",)"
            R"("clientAuth":{"type":"client_secret_basic","secretRef":"S"},"cacheSeconds":7200}}})",
        "/auth/introspection/cacheSeconds", "at most 3600");
    expect_refusal(base + R"("introspection":{"url":"https://as.example/i"}}})",
                   "/auth/introspection/clientId", "gate's client id");
    expect_refusal(
        std::string(
            R"({"upstreams":[{"id":"a","url":"https://a.example/mcp"}],"auth":{"mode":"disabled","introspection":{"url":"https://as.example/i","clientId":"g",)"
            R"("clientAuth":{"type":"client_secret_basic","secretRef":"S"}}}})"),
        "/auth/introspection", "needs auth.mode \"required\"");
}

TEST(config_user_account,
     a_client_metadata_url_is_https_with_a_path_and_needs_an_account_upstream) {
    auto r = parse(
        doc_with(
            R"({"strategy":"user-account"})",
            R"({"publicUrl":"https://gate.example","clientMetadataUrl":"https://gate.example/cimd.json"})"),
        acceptance::specification);
    ASSERT_NE(r.doc, nullptr);
    EXPECT_EQ(r.doc->server.client_metadata_url, "https://gate.example/cimd.json");
    expect_refusal(
        doc_with(
            R"({"strategy":"user-account"})",
            R"({"publicUrl":"https://gate.example","clientMetadataUrl":"http://gate.example/c.json"})"),
        "/server/clientMetadataUrl", "must be an https:// URL");
    expect_refusal(
        doc_with(
            R"({"strategy":"user-account"})",
            R"({"publicUrl":"https://gate.example","clientMetadataUrl":"https://gate.example/"})"),
        "/server/clientMetadataUrl", "must have a path");
    expect_refusal(
        doc_with(
            R"({"strategy":"none"})",
            R"({"publicUrl":"https://gate.example","clientMetadataUrl":"https://gate.example/c.json"})"),
        "/server/clientMetadataUrl", "no upstream's strategy is user-account");
}
