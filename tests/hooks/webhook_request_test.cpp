// Creating a webhook: what is accepted, and a refusal that names the field for everything
// else.
#include "hooks/webhook_request.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>
#include <gtest/gtest.h>

using namespace gate::hooks;

namespace {
field_error refused(std::string_view body) {
    auto r = parse_webhook_spec(boost::json::parse(body));
    EXPECT_TRUE(std::holds_alternative<field_error>(r)) << body;
    return std::holds_alternative<field_error>(r) ? std::get<field_error>(r) : field_error{};
}
} // namespace

TEST(webhook_request, a_complete_request_is_accepted) {
    auto r = parse_webhook_spec(boost::json::parse(
        R"({"event":"deploy.success","url":"https://hooks.example.com/in?x=1","secret":"0123456789abcdef"})"));
    ASSERT_TRUE(std::holds_alternative<webhook_spec>(r));
    auto& s = std::get<webhook_spec>(r);
    EXPECT_EQ(s.event, "deploy.success");
    EXPECT_EQ(s.url, "https://hooks.example.com/in?x=1");
    EXPECT_EQ(s.secret, "0123456789abcdef");
    auto no_secret = parse_webhook_spec(
        boost::json::parse(R"({"event":"usage.threshold","url":"https://h.example"})"));
    ASSERT_TRUE(std::holds_alternative<webhook_spec>(no_secret));
    EXPECT_FALSE(std::get<webhook_spec>(no_secret).secret);
}

TEST(webhook_request, every_bad_field_is_named) {
    EXPECT_EQ(refused(R"([])").field, "");
    EXPECT_EQ(refused(R"({"url":"https://h.example"})").field, "event");
    auto unknown = refused(R"({"event":"deploy.started","url":"https://h.example"})");
    EXPECT_EQ(unknown.field, "event");
    EXPECT_NE(unknown.message.find("deploy.success"), std::string::npos); // lists the known ones
    EXPECT_EQ(refused(R"({"event":1,"url":"https://h.example"})").field, "event");
    EXPECT_EQ(refused(R"({"event":"deploy.failed"})").field, "url");
    auto plain = refused(R"({"event":"deploy.failed","url":"http://h.example"})");
    EXPECT_EQ(plain.field, "url");
    EXPECT_NE(plain.message.find("https"), std::string::npos);
    EXPECT_EQ(refused(R"({"event":"deploy.failed","url":"not a url"})").field, "url");
    EXPECT_EQ(refused(R"({"event":"deploy.failed","url":"https://u:p@h.example"})").field, "url");
    EXPECT_EQ(
        refused(R"({"event":"deploy.failed","url":"https://h.example","secret":"short"})").field,
        "secret");
    EXPECT_EQ(refused(R"({"event":"deploy.failed","url":"https://h.example","secret":7})").field,
              "secret");
    EXPECT_EQ(
        refused(R"({"event":"deploy.failed","url":"https://h.example","colour":"red"})").field,
        "colour");
    std::string long_url = R"({"event":"deploy.failed","url":"https://h.example/)" +
                           std::string(max_url_length, 'a') + R"("})";
    EXPECT_EQ(refused(long_url).field, "url");
}

TEST(webhook_request, a_change_names_what_it_changes_and_keeps_the_rest) {
    auto patch = [](const char* text) {
        return std::get<webhook_patch>(parse_webhook_patch(boost::json::parse(text)));
    };
    auto off = patch(R"({"enabled":false})");
    EXPECT_EQ(off.enabled, false);
    EXPECT_FALSE(off.url);
    EXPECT_FALSE(off.secret);
    auto moved = patch(R"({"url":"https://new.example/h","secret":"0123456789abcdef"})");
    EXPECT_EQ(moved.url, "https://new.example/h");
    ASSERT_TRUE(moved.secret);
    EXPECT_EQ(*moved.secret, "0123456789abcdef");
    EXPECT_FALSE(moved.enabled);
    auto unsigned_ = patch(R"({"secret":null})");
    ASSERT_TRUE(unsigned_.secret); // present, and null: no secret from now on
    EXPECT_FALSE(*unsigned_.secret);
}

TEST(webhook_request, a_bad_change_names_the_field) {
    auto refused = [](const char* text) {
        return std::get<field_error>(parse_webhook_patch(boost::json::parse(text)));
    };
    EXPECT_EQ(refused(R"({})").field, "");
    EXPECT_EQ(refused(R"(3)").field, "");
    EXPECT_EQ(refused(R"({"enabled":"no"})").field, "enabled");
    EXPECT_EQ(refused(R"({"enabled":true,"x":1})").field, "x");
    EXPECT_EQ(refused(R"({"event":"deploy.failed"})").field, "event"); // not changeable
    EXPECT_EQ(refused(R"({"url":"http://plain.example/"})").field, "url");
    EXPECT_EQ(refused(R"({"enabled":true,"secret":"short"})").field, "secret");
    EXPECT_EQ(refused(R"({"secret":7})").field, "secret");
}

// Percent-decoded, a URL's host is what the resolver, TLS and the Host header get: bytes a host
// name cannot hold are refused by position, at creation, at a change and before every delivery.
TEST(webhook_request, a_host_that_is_not_a_host_name_is_refused) {
    struct row {
        const char* url;
        const char* says;
    };
    for (auto [url, says] : {
             row{"https://127.0.0.1%00.evil.example/h", "byte 0x00 (NUL) at position 10"},
             row{"https://evil.example%0d%0aX-Injected:1/", "control character 0x0d"},
             row{"https://a%09b.example/", "control character 0x09"},
             row{"https://a%7fb.example/", "control character 0x7f"},
             row{"https://evil.example%40127.0.0.1/", "'@' at position 13"},
             row{"https://evil.example%2f..%2f/", "'/'"},
             row{"https://a%20b.example/", "' '"},
             row{"https://caf%c3%a9.example/", "byte 0xc3 (not ASCII)"},
             row{"https://a..b.example/", "empty label"},
             row{"https://.a.example/", "empty label"},
             row{"https://a.example../", "empty label"},
             row{"https://[v1.fe80::1]/", "IPvFuture"},
             // What the URL parser would cut off an IP host or a port and read as a path.
             row{"https://127.0.0.1.evil.example/h", "begins like an IPv4 address"},
             row{"https://8.8.8.8%2e%2e/h", "empty label"},
             row{"https://[::1]%00/h", "[::1]%00 is not a host"},
             row{"https://127.0.0.1:8443.evil.example/h", "127.0.0.1:8443.evil.example is not"},
         }) {
        auto why = check_target_url(url);
        ASSERT_TRUE(why) << url;
        EXPECT_NE(why->find(says), std::string::npos) << url << ": " << *why;
        auto patch = parse_webhook_patch(boost::json::parse(
            std::string(R"({"url":)") + boost::json::serialize(boost::json::string(url)) + "}"));
        ASSERT_TRUE(std::holds_alternative<field_error>(patch)) << url;
        EXPECT_EQ(std::get<field_error>(patch).field, "url");
    }
    std::string label(max_host_label_length + 1, 'a');
    EXPECT_NE(check_target_url("https://" + label + ".example/")->find("label longer than 63"),
              std::string::npos);
    std::string name;
    while (name.size() <= max_host_name_length)
        name += "abcdefghi.";
    EXPECT_NE(check_target_url("https://" + name + "x/")->find("longer than 253"),
              std::string::npos);
    // What a host name may be: an absolute name, underscores, percent-encoded letters.
    for (const char* url :
         {"https://hooks.example.com/", "https://hooks.example.com./in", "https://my_host.example/",
          "https://xn--caf-dma.example/", "https://www%2droot.example.com/",
          "https://127.0.0.1:8443/", "https://[2606:4700::1]/", "https://localhost/",
          "https://8.8.8.8?x=1", "https://8.8.8.8:8443?x=1", "https://8.8.8.8"})
        EXPECT_FALSE(check_target_url(url)) << url << ": " << check_target_url(url).value_or("");
}

TEST(webhook_request, the_dialled_host_is_the_decoded_name_or_the_bare_address) {
    auto host = [](const char* url) { return target_host(*boost::urls::parse_absolute_uri(url)); };
    EXPECT_EQ(host("https://www%2droot.example.com/"), "www-root.example.com");
    EXPECT_EQ(host("https://[::ffff:0:7f00:1]:8443/"), "::ffff:0:7f00:1");
    EXPECT_EQ(host("https://127.0.0.1/"), "127.0.0.1");
    EXPECT_EQ(host("https://2130706433/"), "2130706433");
}
