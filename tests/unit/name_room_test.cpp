// What `--validate` says of namespaces that crowd tool names (config/name_room) and the
// specification's rule for a tool name (protocol/tool_name).
#include "config/name_room.hpp"
#include "protocol/tool_name.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

config::document with_namespaces(std::vector<std::optional<std::string>> spaces,
                                 std::string separator = "__") {
    config::document doc;
    for (auto& ns : spaces) {
        config::upstream u;
        u.namespace_ = ns;
        doc.upstreams.push_back(u);
    }
    doc.routing.namespace_separator = std::move(separator);
    return doc;
}

TEST(name_room, a_namespace_that_leaves_common_names_no_room_under_64_is_named) {
    // 30 + 2 = 32 characters leave 32: fine. 31 + 2 leave 31: a 32-character name is over 64.
    auto fine = with_namespaces({std::string(30, 'a'), std::nullopt});
    EXPECT_TRUE(config::name_room_warnings(fine).empty());
    auto crowded = with_namespaces({std::string("ok"), std::string(31, 'b')});
    auto lines = config::name_room_warnings(crowded);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("upstreams[1].namespace"), std::string::npos);
    EXPECT_NE(lines[0].find("takes 33 characters"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("over 31 characters"), std::string::npos) << lines[0];
}

TEST(name_room, characters_outside_the_specifications_set_are_named) {
    auto slash = with_namespaces({std::string("files")}, "/");
    auto lines = config::name_room_warnings(slash);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("outside the specification's"), std::string::npos);
    EXPECT_TRUE(config::name_room_warnings(with_namespaces({std::string("a.b-c")}, "_")).empty());
}

TEST(tool_name, the_specifications_rule) {
    using protocol::tool_name_fault;
    EXPECT_EQ(protocol::check_tool_name("get_weather.v2-A"), tool_name_fault::none);
    EXPECT_EQ(protocol::check_tool_name(std::string(128, 'x')), tool_name_fault::none);
    EXPECT_EQ(protocol::check_tool_name(std::string(129, 'x')), tool_name_fault::too_long);
    EXPECT_EQ(protocol::check_tool_name(""), tool_name_fault::empty);
    for (auto bad : {"a b", "a/b", "a:b", "caf\xc3\xa9", "a\nb", "a,b"})
        EXPECT_EQ(protocol::check_tool_name(bad), tool_name_fault::charset) << bad;
    EXPECT_EQ(protocol::fault_label(tool_name_fault::too_long), "too_long");
}

} // namespace
} // namespace gate
