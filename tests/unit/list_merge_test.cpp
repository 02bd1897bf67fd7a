#include "protocol/list_merge.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using namespace gate::protocol;
namespace json = boost::json;

namespace {
json::array arr(const char* text) {
    return json::parse(text).as_array();
}
} // namespace

TEST(list_merge, rewrites_tool_names_in_upstream_order_and_keeps_everything_else) {
    name_codec codec("__", {"a", "b"});
    auto a = arr(R"([{"name":"echo","description":"d","inputSchema":{"type":"object"}}])");
    auto b = arr(R"([{"name":"echo"},{"name":"add"}])");
    upstream_items parts[] = {{0, &a}, {1, &b}};
    auto merged = merge_lists(list_kind::tools, codec, parts);
    ASSERT_EQ(merged.size(), 3u);
    EXPECT_EQ(merged[0].at("name"), "a__echo");
    EXPECT_EQ(merged[0].at("description"), "d");
    EXPECT_EQ(merged[0].at("inputSchema").at("type"), "object");
    EXPECT_EQ(merged[1].at("name"), "b__echo");
    EXPECT_EQ(merged[2].at("name"), "b__add");
}

TEST(list_merge, never_rewrites_resource_uris_or_names) {
    name_codec codec("__", {"a", "b"});
    auto a = arr(R"([{"uri":"demo://x","name":"x"}])");
    upstream_items parts[] = {{0, &a}};
    auto merged = merge_lists(list_kind::resources, codec, parts);
    EXPECT_EQ(merged[0].at("uri"), "demo://x");
    EXPECT_EQ(merged[0].at("name"), "x");
}

TEST(list_merge, failed_upstream_is_left_out) {
    name_codec codec("__", {"a", "b"});
    auto b = arr(R"([{"name":"echo"}])");
    upstream_items parts[] = {{0, nullptr}, {1, &b}};
    auto merged = merge_lists(list_kind::tools, codec, parts);
    ASSERT_EQ(merged.size(), 1u);
    EXPECT_EQ(merged[0].at("name"), "b__echo");
}

TEST(list_merge, fingerprint_tracks_membership_and_order) {
    auto x = arr(R"([{"name":"a"},{"name":"b"}])");
    auto y = arr(R"([{"name":"b"},{"name":"a"}])");
    auto z = arr(R"([{"name":"ab"}])");
    EXPECT_EQ(list_fingerprint(list_kind::tools, x), list_fingerprint(list_kind::tools, x));
    EXPECT_NE(list_fingerprint(list_kind::tools, x), list_fingerprint(list_kind::tools, y));
    EXPECT_NE(list_fingerprint(list_kind::tools, x), list_fingerprint(list_kind::tools, z));
    EXPECT_NE(list_fingerprint(list_kind::tools, x), list_fingerprint(list_kind::prompts, x));
}

TEST(list_merge, pages_cover_the_list_exactly_once) {
    json::array all;
    for (int i = 0; i < 7; ++i)
        all.push_back(json::object{{"name", std::to_string(i)}});
    std::uint32_t offset = 0;
    std::size_t seen = 0;
    int pages = 0;
    for (;;) {
        auto p = cut_page(all, offset, 3);
        for (auto& item : p.items)
            EXPECT_EQ(item.at("name"), json::value(std::to_string(seen++)));
        ++pages;
        if (!p.next_offset)
            break;
        offset = *p.next_offset;
    }
    EXPECT_EQ(seen, 7u);
    EXPECT_EQ(pages, 3);
}

TEST(list_merge, non_positive_page_size_serves_one_page) {
    json::array all{json::object{{"name", "a"}}, json::object{{"name", "b"}}};
    auto p = cut_page(all, 0, -1);
    EXPECT_EQ(p.items.size(), 2u);
    EXPECT_FALSE(p.next_offset);
}
