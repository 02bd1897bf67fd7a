// What a discovery source serves joins the configured upstreams only whole; an entry outside
// the containment the discovery section sets is left out, and the rest applies.
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

// A static upstream at `url` with the secret `ref`, as the only served entry.
std::string static_entry(std::string_view url, std::string_view ref) {
    return R"({"upstreams":[{"id":"x","url":")" + std::string(url) +
           R"(","namespace":"x","auth":{"strategy":"static","secretRef":")" + std::string(ref) +
           R"("}}]})";
}

TEST(DiscoveryMerge, WithoutAllowedListsACredentialedEntryIsLeftOutAndTheRestApplies) {
    auto r = merge_discovered(*configured(), R"({"upstreams":[
        {"id":"plain","url":"http://127.0.0.1:3/mcp","namespace":"p"},
        {"id":"leak","url":"http://127.0.0.1:4/mcp","namespace":"l",
         "auth":{"strategy":"static","secretRef":"HOME"}},
        {"id":"later","url":"http://127.0.0.1:5/mcp","namespace":"q"}]})");
    ASSERT_TRUE(r.doc) << one_line(r.errors);
    EXPECT_TRUE(r.errors.empty());
    std::vector<std::string> ids;
    for (const auto& u : r.doc->upstreams)
        ids.push_back(u.id);
    EXPECT_EQ(ids, (std::vector<std::string>{"home", "plain", "later"}));
    ASSERT_EQ(r.refused.size(), 1u);
    EXPECT_EQ(r.refused[0].index, 1u);
    EXPECT_EQ(r.refused[0].id, "leak");
    // Every field it asks for is named: the strategy, the secret and the host.
    std::vector<std::string> pointers;
    for (const auto& e : r.refused[0].errors)
        pointers.push_back(e.pointer);
    EXPECT_EQ(pointers, (std::vector<std::string>{"discovered /upstreams/1/auth/strategy",
                                                  "discovered /upstreams/1/auth/secretRef",
                                                  "discovered /upstreams/1/url"}));
    auto lines = refusal_lines(r.refused);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("the discovered upstream \"leak\" is refused"), std::string::npos);
    EXPECT_NE(lines[0].find("names the secret HOME, which discovery.allowedSecretRefs"),
              std::string::npos)
        << lines[0];
}

TEST(DiscoveryMerge, EveryEntryRefusedStillAppliesTheConfiguredUpstreams) {
    auto r = merge_discovered(*configured(), R"({"upstreams":[
        {"id":"pt","url":"http://127.0.0.1:4/mcp","namespace":"t","auth":{"strategy":"passthrough"}}]})");
    // passthrough needs auth.mode required: that is the merged validation's, and rejects whole.
    EXPECT_FALSE(r.doc);
    auto with_auth = parse(R"({"upstreams":[{"id":"home","url":"http://127.0.0.1:1/mcp",
        "namespace":"h"}],"auth":{"mode":"required","resource":"https://gate.example/mcp",
        "issuers":[{"issuer":"https://idp.example"}]},
        "discovery":{"url":"http://127.0.0.1:2/registry"}})");
    ASSERT_TRUE(with_auth.doc) << one_line(with_auth.errors);
    r = merge_discovered(*with_auth.doc, R"({"upstreams":[
        {"id":"pt","url":"http://127.0.0.1:4/mcp","namespace":"t","auth":{"strategy":"passthrough"}}]})");
    ASSERT_TRUE(r.doc) << one_line(r.errors);
    EXPECT_EQ(r.doc->upstreams.size(), 1u);
    EXPECT_EQ(r.doc->discovered_count(), 0u);
    ASSERT_EQ(r.refused.size(), 1u);
    EXPECT_EQ(r.refused[0].errors[0].pointer, "discovered /upstreams/0/auth/strategy");
    EXPECT_NE(r.refused[0].errors[0].reason.find("callers' own tokens"), std::string::npos);
}

TEST(DiscoveryMerge, ASecretOutsideAllowedSecretRefsIsRejected) {
    auto doc = configured(R"(,"allowedStrategies":["static"],"allowedSecretRefs":["GRANTED"],
        "allowedCredentialHosts":["127.0.0.1"])");
    auto denied = merge_discovered(*doc, static_entry("http://127.0.0.1:3/mcp", "PAYROLL_DB"));
    ASSERT_TRUE(denied.doc);
    EXPECT_EQ(denied.doc->discovered_count(), 0u);
    ASSERT_EQ(denied.refused.size(), 1u);
    ASSERT_EQ(denied.refused[0].errors.size(), 1u);
    EXPECT_EQ(denied.refused[0].errors[0].pointer, "discovered /upstreams/0/auth/secretRef");
    EXPECT_NE(denied.refused[0].errors[0].reason.find("allowedSecretRefs"), std::string::npos);
    auto allowed = merge_discovered(*doc, static_entry("http://127.0.0.1:3/mcp", "GRANTED"));
    ASSERT_TRUE(allowed.doc);
    EXPECT_TRUE(allowed.refused.empty());
    EXPECT_EQ(allowed.doc->discovered_count(), 1u);
}

TEST(DiscoveryMerge, CredentialsGoOnlyToAllowedCredentialHosts) {
    auto doc = configured(R"(,"allowedStrategies":["static"],"allowedSecretRefs":["TOKEN"],
        "allowedCredentialHosts":["mcp.internal.example"])");
    auto denied = merge_discovered(*doc, R"({"upstreams":[{"id":"x",
        "urls":["https://mcp.internal.example/mcp","https://evil.example/mcp"],"namespace":"x",
        "auth":{"strategy":"static","secretRef":"TOKEN"}}]})");
    ASSERT_TRUE(denied.doc);
    ASSERT_EQ(denied.refused.size(), 1u);
    ASSERT_EQ(denied.refused[0].errors.size(), 1u);
    EXPECT_EQ(denied.refused[0].errors[0].pointer, "discovered /upstreams/0/urls/1");
    EXPECT_NE(denied.refused[0].errors[0].reason.find("evil.example"), std::string::npos);
    // Without credentials an upstream may be anywhere; hosts compare case-insensitively.
    auto anywhere = merge_discovered(*doc, R"({"upstreams":[{"id":"x",
        "url":"https://evil.example/mcp","namespace":"x"}]})");
    EXPECT_TRUE(anywhere.doc && anywhere.refused.empty());
    auto cased = merge_discovered(*doc, static_entry("https://MCP.Internal.Example/mcp", "TOKEN"));
    EXPECT_TRUE(cased.doc && cased.refused.empty());
}

TEST(DiscoveryMerge, AValidationErrorStillRejectsTheWholeDocument) {
    // An entry outside the containment beside one that does not validate: nothing applies.
    auto r = merge_discovered(*configured(), R"({"upstreams":[
        {"id":"leak","url":"http://127.0.0.1:4/mcp","namespace":"l",
         "auth":{"strategy":"static","secretRef":"HOME"}},
        {"id":"bad","url":"ftp://127.0.0.1/x","namespace":"b"}]})");
    EXPECT_FALSE(r.doc);
    EXPECT_TRUE(r.refused.empty());
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].pointer, "discovered /upstreams/1/url");
}

} // namespace
} // namespace gate::config
