#include "protocol/name_codec.hpp"

#include <gtest/gtest.h>

using gate::protocol::name_codec;

TEST(name_codec, encodes_namespace_separator_name) {
    name_codec c("__", {"a", "b"});
    EXPECT_EQ(c.encode(0, "echo"), "a__echo");
    EXPECT_EQ(c.encode(1, "get_sum"), "b__get_sum");
}

TEST(name_codec, decodes_to_the_owning_upstream_and_strips_the_prefix) {
    name_codec c("__", {"a", "b"});
    auto d = c.decode("b__get_sum");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->upstream, 1u);
    EXPECT_EQ(d->name, "get_sum");
}

TEST(name_codec, names_may_contain_the_separator_themselves) {
    name_codec c("__", {"a"});
    auto d = c.decode("a__x__y");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->name, "x__y");
}

TEST(name_codec, longest_namespace_wins) {
    name_codec c(".", {"git", "github"});
    auto d = c.decode("github.issues");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->upstream, 1u);
}

TEST(name_codec, unknown_namespace_and_bare_names_do_not_resolve) {
    name_codec c("__", {"a", "b"});
    EXPECT_FALSE(c.decode("zz__echo"));
    EXPECT_FALSE(c.decode("echo"));
    EXPECT_FALSE(c.decode("a__"));    // empty tool name
    EXPECT_FALSE(c.decode("a_echo")); // separator incomplete
}

TEST(name_codec, passthrough_never_rewrites) {
    name_codec c("__", {std::nullopt});
    EXPECT_TRUE(c.passthrough());
    EXPECT_EQ(c.encode(0, "a__echo"), "a__echo");
    auto d = c.decode("a__echo");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->name, "a__echo");
}
