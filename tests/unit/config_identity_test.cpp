// server.info and server.instructions (docs/configuration.md): what a namespaced federation
// presents as itself, read, and every refusal with its pointer and a reason.
#include "config/load.hpp"
#include "tests/unit/config_refusal.hpp"

#include <gtest/gtest.h>

using namespace gate::config;
using gate::config::testing::expect_refusal;

namespace {

std::string identity_doc(std::string_view server, bool namespaced = true) {
    return R"({"server":)" + std::string(server) +
           R"(,"upstreams":[{"id":"t","url":"http://127.0.0.1:9/mcp")" +
           (namespaced ? R"(,"namespace":"t")" : "") + "}]}";
}

} // namespace

TEST(config_identity, absent_the_federation_is_gate) {
    auto r = parse(identity_doc("{}"), acceptance::specification);
    ASSERT_NE(r.doc, nullptr);
    EXPECT_EQ(r.doc->server.info, federation_info{});
    EXPECT_EQ(r.doc->server.instructions, federation_instructions{});
}

TEST(config_identity, the_info_and_instructions_are_read) {
    auto r =
        parse(identity_doc(R"({"info":{"name":"acme-tools","title":"ACME tools","version":"2026.11",
        "websiteUrl":"https://tools.acme.example","icons":[{"src":"data:image/png;base64,iVBO",
        "mimeType":"image/png","sizes":["48x48","any"],"theme":"dark"},
        {"src":"https://tools.acme.example/icon.png"}]},
        "instructions":{"text":"Use ACME's tools.\nAsk before writing.","fromUpstreams":true}})"),
              acceptance::specification);
    ASSERT_NE(r.doc, nullptr) << (r.errors.empty() ? "" : r.errors[0].reason);
    const auto& i = r.doc->server.info;
    EXPECT_EQ(i.name, "acme-tools");
    EXPECT_EQ(i.title, "ACME tools");
    EXPECT_EQ(i.version, "2026.11");
    EXPECT_EQ(i.website_url, "https://tools.acme.example");
    ASSERT_EQ(i.icons.size(), 2u);
    EXPECT_EQ(i.icons[0].mime_type, "image/png");
    EXPECT_EQ(i.icons[0].sizes, (std::vector<std::string>{"48x48", "any"}));
    EXPECT_EQ(i.icons[0].theme, "dark");
    EXPECT_EQ(i.icons[1].src, "https://tools.acme.example/icon.png");
    EXPECT_EQ(r.doc->server.instructions.text, "Use ACME's tools.\nAsk before writing.");
    EXPECT_TRUE(r.doc->server.instructions.from_upstreams);
}

TEST(config_identity, each_value_is_bounded_and_printable) {
    expect_refusal(identity_doc(R"({"info":{"name":""}})"), "/server/info/name", "empty");
    expect_refusal(identity_doc(R"({"info":{"name":")" + std::string(129, 'n') + R"("}})"),
                   "/server/info/name", "at most 128");
    expect_refusal(identity_doc(R"({"info":{"title":"a\u001b[31mb"}})"), "/server/info/title",
                   "control characters");
    expect_refusal(identity_doc(R"({"info":{"version":"1\n2"}})"), "/server/info/version",
                   "control characters");
    expect_refusal(identity_doc(R"x({"info":{"websiteUrl":"javascript:alert(1)"}})x"),
                   "/server/info/websiteUrl", "javascript:alert(1)");
    expect_refusal(identity_doc(R"({"info":{"nickname":"x"}})"), "/server/info/nickname", "");
    expect_refusal(identity_doc(R"({"instructions":{"text":"a\u0007b"}})"),
                   "/server/instructions/text", "control characters");
    expect_refusal(identity_doc(R"({"instructions":{"text":")" + std::string(8193, 'x') + R"("}})"),
                   "/server/instructions/text", "at most 8192");
    expect_refusal(identity_doc(R"({"instructions":{}})"), "/server/instructions", "names nothing");
    expect_refusal(identity_doc(R"({"instructions":{"fromUpstreams":"yes"}})"),
                   "/server/instructions/fromUpstreams", "");
}

TEST(config_identity, an_icon_is_an_image_a_client_can_show_without_asking_a_third_party) {
    auto icon = [](std::string_view fields) {
        return identity_doc(R"({"info":{"icons":[)" + std::string(fields) + "]}}");
    };
    expect_refusal(icon(R"({"mimeType":"image/png"})"), "/server/info/icons/0/src", "");
    expect_refusal(icon(R"({"src":"data:image/svg+xml;base64,PHN2Zz4="})"),
                   "/server/info/icons/0/src", "not SVG");
    expect_refusal(icon(R"({"src":"data:text/html,<script>"})"), "/server/info/icons/0/src",
                   "no image type");
    expect_refusal(icon(R"({"src":"http://cdn.example/i.png"})"), "/server/info/icons/0/src",
                   "https URL");
    expect_refusal(icon(R"({"src":"https://u:p@cdn.example/i.png"})"), "/server/info/icons/0/src",
                   "user information");
    expect_refusal(icon(R"({"src":"data:image/png;base64,)" + std::string(70000, 'A') + R"("})"),
                   "/server/info/icons/0/src", "at most 65536");
    expect_refusal(icon(R"({"src":"https://cdn.example/i.png","mimeType":"image/svg+xml"})"),
                   "/server/info/icons/0/mimeType", "not SVG");
    expect_refusal(icon(R"({"src":"https://cdn.example/i.png","sizes":["big"]})"),
                   "/server/info/icons/0/sizes/0", "48x48");
    expect_refusal(icon(R"({"src":"https://cdn.example/i.png","theme":"blue"})"),
                   "/server/info/icons/0/theme", "");
    std::string nine;
    for (int i = 0; i < 9; ++i)
        nine += std::string(i ? "," : "") + R"({"src":"https://cdn.example/i.png"})";
    expect_refusal(icon(nine), "/server/info/icons", "at most 8");
}

TEST(config_identity, passthrough_presents_its_upstream_as_it_is) {
    expect_refusal(identity_doc(R"({"info":{"name":"acme"}})", false), "/server/info",
                   "passes that upstream's own initialize through");
    expect_refusal(identity_doc(R"({"instructions":{"text":"hi"}})", false), "/server/instructions",
                   "namespaced federation's");
}
