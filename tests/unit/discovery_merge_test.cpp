// What a discovery source serves joins the configured upstreams only whole and only within
// the containment the discovery section sets.
#include "config/discovery_merge.hpp"

#include <gtest/gtest.h>

namespace gate::config {
namespace {

std::shared_ptr<const document> configured(std::string_view discovery_extra = "") {
    auto r = parse(
        std::string(R"({"upstreams":[{"id":"home","url":"http://127.0.0.1:1/mcp","namespace":"h"}],
        "discovery":{"url":"http://127.0.0.1:2/registry")") +
        std::string(discovery_extra) + "}}");
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? ""
                                                       : r.errors[0].pointer + r.errors[0].reason);
    return r.doc;
}

TEST(DiscoveryMerge, ServedUpstreamsJoinTheConfiguredOnesAndSaySo) {
    auto r = merge_discovered(*configured(), R"({"upstreams":[
        {"id":"found","url":"http://127.0.0.1:3/mcp","namespace":"f"}]})");
    ASSERT_TRUE(r.doc) << r.errors[0].pointer << ": " << r.errors[0].reason;
    ASSERT_EQ(r.doc->upstreams.size(), 2u);
    EXPECT_FALSE(r.doc->upstreams[0].discovered);
    EXPECT_EQ(r.doc->upstreams[1].id, "found");
    EXPECT_TRUE(r.doc->upstreams[1].discovered);
    // A later poll merges into the configured text, not into this merge.
    EXPECT_EQ(*r.doc->source.text, *configured()->source.text);
}

TEST(DiscoveryMerge, AnEmptyListLeavesTheConfiguredUpstreams) {
    auto r = merge_discovered(*configured(), R"({"upstreams":[]})");
    ASSERT_TRUE(r.doc);
    EXPECT_EQ(r.doc->upstreams.size(), 1u);
}

TEST(DiscoveryMerge, ABadEntryRejectsTheWholeDocumentAtItsServedPointer) {
    auto r = merge_discovered(*configured(), R"({"upstreams":[
        {"id":"good","url":"http://127.0.0.1:3/mcp","namespace":"g"},
        {"id":"bad","url":"ftp://127.0.0.1/x","namespace":"b"}]})");
    EXPECT_FALSE(r.doc);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].pointer, "discovered /upstreams/1/url");
}

TEST(DiscoveryMerge, ACollisionWithAConfiguredUpstreamIsRejected) {
    auto r = merge_discovered(*configured(), R"({"upstreams":[
        {"id":"home","url":"http://127.0.0.1:3/mcp","namespace":"x"}]})");
    EXPECT_FALSE(r.doc);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_EQ(r.errors[0].pointer, "discovered /upstreams/0/id");
    auto ns = merge_discovered(*configured(), R"({"upstreams":[
        {"id":"other","url":"http://127.0.0.1:3/mcp","namespace":"h"}]})");
    EXPECT_FALSE(ns.doc);
}

TEST(DiscoveryMerge, ADocumentThatIsNotADiscoveryDocumentIsRejected) {
    for (auto body : {R"(not json)", R"([])", R"({"upstreams":{}})", R"({})",
                      R"({"upstreams":[],"policy":{"defaultDecision":"allow"}})"}) {
        auto r = merge_discovered(*configured(), body);
        EXPECT_FALSE(r.doc) << body;
        ASSERT_FALSE(r.errors.empty()) << body;
        EXPECT_TRUE(r.errors[0].pointer.starts_with("discovered ")) << r.errors[0].pointer;
    }
}

TEST(DiscoveryMerge, ASecretOutsideAllowedSecretRefsIsRejected) {
    auto doc = configured(R"(,"allowedSecretRefs":["GRANTED"])");
    auto denied = merge_discovered(*doc, R"({"upstreams":[{"id":"x","url":"http://127.0.0.1:3/mcp",
        "namespace":"x","auth":{"strategy":"static","secretRef":"PAYROLL_DB"}}]})");
    EXPECT_FALSE(denied.doc);
    ASSERT_EQ(denied.errors.size(), 1u);
    EXPECT_EQ(denied.errors[0].pointer, "discovered /upstreams/0/auth/secretRef");
    EXPECT_NE(denied.errors[0].reason.find("allowedSecretRefs"), std::string::npos);
    auto allowed = merge_discovered(*doc, R"({"upstreams":[{"id":"x","url":"http://127.0.0.1:3/mcp",
        "namespace":"x","auth":{"strategy":"static","secretRef":"GRANTED"}}]})");
    EXPECT_TRUE(allowed.doc);
}

TEST(DiscoveryMerge, CredentialsGoOnlyToAllowedCredentialHosts) {
    auto doc = configured(R"(,"allowedCredentialHosts":["mcp.internal.example"])");
    auto denied = merge_discovered(*doc, R"({"upstreams":[{"id":"x",
        "urls":["https://mcp.internal.example/mcp","https://evil.example/mcp"],"namespace":"x",
        "auth":{"strategy":"static","secretRef":"TOKEN"}}]})");
    EXPECT_FALSE(denied.doc);
    ASSERT_EQ(denied.errors.size(), 1u);
    EXPECT_EQ(denied.errors[0].pointer, "discovered /upstreams/0/urls/1");
    EXPECT_NE(denied.errors[0].reason.find("evil.example"), std::string::npos);
    // Without credentials an upstream may be anywhere; hosts compare case-insensitively.
    EXPECT_TRUE(merge_discovered(*doc, R"({"upstreams":[{"id":"x","url":"https://evil.example/mcp",
        "namespace":"x"}]})")
                    .doc);
    EXPECT_TRUE(merge_discovered(*doc, R"({"upstreams":[{"id":"x",
        "url":"https://MCP.Internal.Example/mcp","namespace":"x","auth":{"strategy":"static","secretRef":"TOKEN"}}]})")
                    .doc);
}

} // namespace
} // namespace gate::config
