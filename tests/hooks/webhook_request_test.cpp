// Creating a webhook: what is accepted, and a refusal that names the field for everything
// else.
#include "hooks/webhook_request.hpp"

#include <boost/json/parse.hpp>
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
