// Upstreams' icons under gate's origin (protocol/icons): origins compared as MCP's same-origin
// rule means them, digests, the namespace's path segment and the path read back (hostile paths
// refused), image types by their first bytes, and the rewrite of an item's icons.
#include "protocol/icons.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace gate::protocol {
namespace {

namespace json = boost::json;

TEST(icons, origins_compare_scheme_host_and_port) {
    EXPECT_EQ(http_origin("http://127.0.0.1:8080/mcp"), "http://127.0.0.1:8080");
    EXPECT_EQ(http_origin("HTTPS://Up.Example:443/icons/a.png?x=1#f"), "https://up.example");
    EXPECT_EQ(http_origin("http://up.example:80/a.png"), "http://up.example");
    EXPECT_EQ(http_origin("http://[::1]:9/a.png"), "http://[::1]:9");
    EXPECT_NE(http_origin("http://up.example/a.png"), http_origin("https://up.example/a.png"));
    EXPECT_NE(http_origin("http://up.example:81/a.png"), http_origin("http://up.example/a.png"));
    // Nothing gate would fetch.
    EXPECT_FALSE(http_origin("ftp://up.example/a.png"));
    EXPECT_FALSE(http_origin("http://user:pw@up.example/a.png"));
    EXPECT_FALSE(http_origin("http:///a.png"));
    EXPECT_FALSE(http_origin("http://up.example:99999/a.png"));
    EXPECT_FALSE(http_origin("http://up.example:080/a.png"));
    EXPECT_FALSE(http_origin("http://up.example/a\r\nX-Evil: 1"));
    EXPECT_FALSE(http_origin("http://up.example/a b.png"));
    EXPECT_FALSE(http_origin("http://up.example/" + std::string(max_icon_src, 'a')));
}

TEST(icons, digests_are_32_hex_digits_of_sha256) {
    // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    EXPECT_EQ(icon_digest("abc"), "ba7816bf8f01cfea414140de5dae2223");
    EXPECT_NE(icon_digest("http://a/1.png"), icon_digest("http://a/2.png"));
}

TEST(icons, a_namespace_is_one_safe_segment_and_read_back) {
    EXPECT_EQ(icon_path_segment("basic"), "basic");
    EXPECT_EQ(icon_path_segment("a.b/c d%"), "a%2Eb%2Fc%20d%25");
    auto digest = icon_digest("x");
    auto back = parse_icon_path("/icons/" + icon_path_segment("a.b c") + "/" + digest);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->first, "a.b c");
    EXPECT_EQ(back->second, digest);
    EXPECT_TRUE(parse_icon_path("/icons/a%2eb/" + digest)); // lower-case hex too
}

TEST(icons, hostile_paths_are_no_icon) {
    auto digest = icon_digest("x");
    for (const auto& p : std::vector<std::string>{
             "/icons/" + digest, "/icons//" + digest, "/icons/../" + digest,
             "/icons/%2e%2e/" + digest, "/icons/%2E/" + digest, "/icons/a%2Fb/" + digest,
             "/icons/a/b/" + digest, "/icons/a%00/" + digest, "/icons/a%2/" + digest,
             "/icons/a%zz/" + digest, "/icons/a/" + digest + "/", "/icons/a/" + digest.substr(1),
             "/icons/a/../" + digest, "/icons/a/" + std::string(32, 'G'),
             "/icons/a/ABCDEF0123456789ABCDEF0123456789", "/icons/a/" + digest + "%00",
             "/icon/a/" + digest})
        EXPECT_FALSE(parse_icon_path(p)) << p;
}

TEST(icons, image_types_by_their_first_bytes) {
    EXPECT_EQ(sniff_image(std::string("\x89PNG\r\n\x1a\n\0\0", 10)), image_type::png);
    EXPECT_EQ(sniff_image("\xFF\xD8\xFF\xE0rest"), image_type::jpeg);
    EXPECT_EQ(sniff_image("GIF89a..."), image_type::gif);
    EXPECT_EQ(sniff_image(std::string("RIFF\x10\0\0\0WEBPVP8 ", 16)), image_type::webp);
    EXPECT_FALSE(sniff_image("<svg xmlns=\"http://www.w3.org/2000/svg\"/>"));
    EXPECT_FALSE(sniff_image("<?xml version=\"1.0\"?><svg/>"));
    EXPECT_FALSE(sniff_image(std::string("RIFF\x10\0\0\0WAVEfmt ", 16)));
    EXPECT_FALSE(sniff_image(""));
    EXPECT_EQ(image_mime(image_type::webp), "image/webp");
}

TEST(icons, an_items_icons_are_rewritten_kept_or_dropped) {
    icon_site site{{"http://up.example:8080"}, "https://gw.example/icons/basic/"};
    std::vector<std::pair<std::string, std::string>> kept;
    std::vector<std::string> dropped;
    icon_hooks hooks{
        [&](std::string_view d, std::string_view s) { kept.emplace_back(d, s); },
        [&](icon_drop why, std::string_view) { dropped.emplace_back(drop_label(why)); }};
    std::string big = "data:image/png;base64," + std::string(max_data_icon, 'A');
    auto item = json::parse(R"J({"name":"t","icons":[
        {"src":"http://UP.example:8080/i.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"},
        {"src":"http://other.example/i.png"},
        {"src":"data:image/png;base64,iVBORw0KGgo="},
        {"src":"javascript:alert(1)"},
        {"src":"file:///etc/passwd"},
        {"src":"http://up.example:8080/a\r\nb"},
        {"nosrc":1}, 7]})J")
                    .as_object();
    item["icons"].as_array().push_back(json::object{{"src", big}});
    ASSERT_TRUE(rewrite_icons(item, site, hooks));
    auto& icons = item["icons"].as_array();
    ASSERT_EQ(icons.size(), 2u);
    auto digest = icon_digest("http://UP.example:8080/i.png");
    EXPECT_EQ(icons[0].at("src").as_string(), "https://gw.example/icons/basic/" + digest);
    EXPECT_EQ(icons[0].at("mimeType"), "image/png");
    EXPECT_EQ(icons[0].at("theme"), "dark");
    EXPECT_EQ(icons[1].at("src"), "data:image/png;base64,iVBORw0KGgo=");
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0].first, digest);
    EXPECT_EQ(kept[0].second, "http://UP.example:8080/i.png");
    EXPECT_EQ(dropped, (std::vector<std::string>{"other_origin", "scheme", "scheme", "malformed",
                                                 "malformed", "malformed", "data_too_big"}));
}

TEST(icons, nothing_left_removes_the_member_and_no_icons_change_nothing) {
    icon_site site{{"http://up.example"}, "/icons/a/"};
    auto item =
        json::parse(R"({"name":"t","icons":[{"src":"https://elsewhere/i.png"}]})").as_object();
    EXPECT_TRUE(rewrite_icons(item, site, {}));
    EXPECT_FALSE(item.contains("icons"));
    auto plain =
        json::parse(R"({"name":"t","icons":[{"src":"data:image/gif;base64,R0"}]})").as_object();
    auto before = json::serialize(plain);
    EXPECT_FALSE(rewrite_icons(plain, site, {}));
    EXPECT_EQ(json::serialize(plain), before);
    auto none = json::parse(R"({"name":"t"})").as_object();
    EXPECT_FALSE(rewrite_icons(none, site, {}));
}

} // namespace
} // namespace gate::protocol
