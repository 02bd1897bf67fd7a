// What a discovered upstream may use of gate's: nothing that carries a credential unless the
// discovery section names it, each field refused at its own pointer; and what --validate says.
#include "config/discovery_containment.hpp"

#include <gtest/gtest.h>

namespace gate::config {
namespace {

// The discovery section with `lists` (JSON members) and one discovered upstream `entry`, parsed
// as a configuration so the upstream is the model gate would use.
struct fixture {
    std::shared_ptr<const document> doc;
    const discovery& d() const { return *doc->discovery; }
    const upstream& u() const { return doc->upstreams.back(); }
};

fixture parse_with(std::string_view lists, std::string_view entry) {
    auto text = std::string(R"({"auth":{"mode":"required","resource":"https://gate.example/mcp",
        "issuers":[{"issuer":"https://idp.example"}]},"upstreams":[)") +
                std::string(entry) + R"(],"discovery":{"url":"http://127.0.0.1:2/r")" +
                std::string(lists) + "}}";
    auto r = parse(text);
    EXPECT_TRUE(r.errors.empty()) << one_line(r.errors);
    return {r.doc};
}

std::vector<std::string> pointers(const std::vector<error>& errors) {
    std::vector<std::string> out;
    for (const auto& e : errors)
        out.push_back(e.pointer);
    return out;
}

const std::string at = "discovered /upstreams/0";

constexpr std::string_view cc_entry =
    R"({"id":"x","url":"https://tools.example/mcp","namespace":"x","auth":{
        "strategy":"client-credentials","tokenEndpoint":"https://login.example/token",
        "clientId":"gate","clientAuth":{"type":"client_secret_post","secretRef":"CC"}}})";
constexpr std::string_view xt_entry =
    R"({"id":"x","url":"https://tools.example/mcp","namespace":"x","auth":{
        "strategy":"token-exchange","tokenEndpoint":"https://login.example/token",
        "clientId":"gate","clientAuth":{"type":"client_secret_basic","secretRef":"XT"},
        "audience":"https://tools.example"}})";

TEST(DiscoveryContainment, AnUpstreamWithoutCredentialsNeedsNoList) {
    auto f = parse_with("", R"({"id":"x","url":"https://anywhere.example/mcp","namespace":"x"})");
    EXPECT_TRUE(containment_errors(f.d(), f.u(), at).empty());
}

TEST(DiscoveryContainment, NoListsRefuseEveryCredentialAtEachField) {
    auto cc = parse_with("", cc_entry);
    EXPECT_EQ(pointers(containment_errors(cc.d(), cc.u(), at)),
              (std::vector<std::string>{at + "/auth/strategy", at + "/auth/clientAuth/secretRef",
                                        at + "/url", at + "/auth/tokenEndpoint"}));
    auto pt = parse_with("", R"({"id":"x","url":"https://tools.example/mcp","namespace":"x",
        "auth":{"strategy":"passthrough"}})");
    auto why = containment_errors(pt.d(), pt.u(), at);
    EXPECT_EQ(pointers(why), (std::vector<std::string>{at + "/auth/strategy", at + "/url"}));
    EXPECT_NE(why[0].reason.find("callers' own tokens"), std::string::npos) << why[0].reason;
    EXPECT_NE(why[1].reason.find("tools.example"), std::string::npos) << why[1].reason;
    auto xt = parse_with("", xt_entry);
    auto xt_why = containment_errors(xt.d(), xt.u(), at);
    ASSERT_EQ(xt_why.size(), 4u);
    EXPECT_NE(xt_why[3].reason.find("callers' tokens"), std::string::npos) << xt_why[3].reason;
}

TEST(DiscoveryContainment, EachListOpensOnlyWhatItNames) {
    const std::string all = R"(,"allowedStrategies":["client-credentials","token-exchange"],
        "allowedSecretRefs":["CC","XT"],"allowedCredentialHosts":["tools.example","login.example"])";
    auto cc = parse_with(all, cc_entry);
    EXPECT_TRUE(containment_errors(cc.d(), cc.u(), at).empty());
    auto xt = parse_with(all, xt_entry);
    EXPECT_TRUE(containment_errors(xt.d(), xt.u(), at).empty());
    // The token endpoint's host is its own name: the upstream's host does not cover it.
    auto no_login = parse_with(R"(,"allowedStrategies":["client-credentials"],
        "allowedSecretRefs":["CC"],"allowedCredentialHosts":["tools.example"])",
                               cc_entry);
    EXPECT_EQ(pointers(containment_errors(no_login.d(), no_login.u(), at)),
              std::vector<std::string>{at + "/auth/tokenEndpoint"});
    // A secret allowed for one strategy is not a strategy allowed.
    auto no_strategy = parse_with(R"(,"allowedStrategies":["static"],"allowedSecretRefs":["CC"],
        "allowedCredentialHosts":["tools.example","login.example"])",
                                  cc_entry);
    EXPECT_EQ(pointers(containment_errors(no_strategy.d(), no_strategy.u(), at)),
              std::vector<std::string>{at + "/auth/strategy"});
    auto other_secret = parse_with(R"(,"allowedStrategies":["client-credentials"],
        "allowedSecretRefs":["XT"],"allowedCredentialHosts":["tools.example","login.example"])",
                                   cc_entry);
    EXPECT_EQ(pointers(containment_errors(other_secret.d(), other_secret.u(), at)),
              std::vector<std::string>{at + "/auth/clientAuth/secretRef"});
}

TEST(DiscoveryContainment, ADiscoveredUpstreamIsProbedAtMostOnceASecond) {
    auto entry = [](int ms) {
        return R"({"id":"x","url":"https://tools.example/mcp","namespace":"x",
            "healthCheck":{"intervalMs":)" +
               std::to_string(ms) + "}}";
    };
    auto fast = parse_with("", entry(1));
    EXPECT_EQ(pointers(containment_errors(fast.d(), fast.u(), at)),
              std::vector<std::string>{at + "/healthCheck/intervalMs"});
    auto fine = parse_with("", entry(1000));
    EXPECT_TRUE(containment_errors(fine.d(), fine.u(), at).empty());
}

TEST(DiscoveryContainment, AStaticSecretNeverGoesInAHeaderThatFramesTheRequest) {
    // Refused for every upstream, configured or discovered, when the document is read (a
    // discovery document with such an entry does not validate), so containment never sees one.
    const std::string lists = R"(,"allowedStrategies":["static"],"allowedSecretRefs":["K"],
        "allowedCredentialHosts":["tools.example"])";
    auto entry = [](std::string_view header) {
        return R"({"id":"x","url":"https://tools.example/mcp","namespace":"x","auth":{
            "strategy":"static","secretRef":"K","header":")" +
               std::string(header) + R"("}})";
    };
    auto document = [&](std::string_view header) {
        return std::string(R"({"auth":{"mode":"required","resource":"https://gate.example/mcp",
        "issuers":[{"issuer":"https://idp.example"}]},"upstreams":[)") +
               entry(header) + R"(],"discovery":{"url":"http://127.0.0.1:2/r")" + lists + "}}";
    };
    for (auto header : {"Host", "content-length", "Transfer-Encoding", "Connection", "TE"}) {
        auto r = parse(document(header));
        EXPECT_EQ(pointers(r.errors), std::vector<std::string>{"/upstreams/0/auth/header"})
            << header;
    }
    for (auto header : {"Authorization", "X-Api-Key"}) {
        auto f = parse_with(lists, entry(header));
        EXPECT_TRUE(containment_errors(f.d(), f.u(), at).empty()) << header;
    }
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines)
        out += l + "\n";
    return out;
}

TEST(DiscoveryContainment, TheSummaryExplainsTheListsWhenNoneIsSet) {
    auto lines = containment_summary(discovery{});
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_NE(lines[0].find("no secret, no credential host and no caller's token: auth strategy "
                            "\"none\" only"),
              std::string::npos)
        << lines[0];
    EXPECT_NE(lines[1].find("discovery.allowedStrategies, discovery.allowedSecretRefs and "
                            "discovery.allowedCredentialHosts"),
              std::string::npos)
        << lines[1];
}

TEST(DiscoveryContainment, TheSummaryNamesWhatIsAllowedAndNotesListsThatCannotTakeEffect) {
    discovery d;
    d.allowed_strategies = {"static", "none", "static"};
    d.allowed_secret_refs = {"TOOLS_TOKEN"};
    d.allowed_credential_hosts = {"tools.internal"};
    auto full = joined(containment_summary(d));
    EXPECT_NE(full.find("the auth strategies \"none\", \"static\" (discovery.allowedStrategies)"),
              std::string::npos)
        << full;
    EXPECT_NE(full.find("the secrets TOOLS_TOKEN (discovery.allowedSecretRefs)"),
              std::string::npos);
    EXPECT_NE(full.find("the credential hosts tools.internal"), std::string::npos);
    EXPECT_EQ(full.find("note:"), std::string::npos) << full;

    discovery hostless;
    hostless.allowed_strategies = {"client-credentials"};
    auto notes = joined(containment_summary(hostless));
    EXPECT_NE(notes.find("note: no discovered upstream can use \"client-credentials\" until "
                         "discovery.allowedCredentialHosts names a host"),
              std::string::npos)
        << notes;
    EXPECT_NE(notes.find("note: \"client-credentials\" needs a secret"), std::string::npos);

    discovery strategyless;
    strategyless.allowed_secret_refs = {"K"};
    strategyless.allowed_credential_hosts = {"h"};
    auto more = joined(containment_summary(strategyless));
    EXPECT_NE(more.find("use the auth strategies \"none\" (discovery.allowedStrategies)"),
              std::string::npos)
        << more;
    EXPECT_NE(more.find("note: discovery.allowedSecretRefs names secrets, but"), std::string::npos);
    EXPECT_NE(more.find("note: discovery.allowedCredentialHosts names hosts, but"),
              std::string::npos);
}

} // namespace
} // namespace gate::config
