#include "protocol/name_codec.hpp"

#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <vector>

using gate::protocol::has_alias_shape;
using gate::protocol::name_codec;
using gate::protocol::short_alias;

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

TEST(name_codec, each_separator_in_a_name_marks_a_candidate_and_the_longest_owner_wins) {
    // Configurations refuse a namespace holding the separator; the codec still picks the
    // longest owner of the candidates a name's separators mark.
    name_codec c(".", {"a", "a.b"});
    auto d = c.decode("a.b.c");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->upstream, 1u);
    EXPECT_EQ(d->name, "c");
    EXPECT_EQ(c.decode("a.x.y")->upstream, 0u);
}

TEST(name_codec, a_thousand_namespaces_each_decode_to_their_own) {
    std::vector<std::optional<std::string>> spaces;
    for (int i = 0; i < 1000; ++i)
        spaces.emplace_back("u" + std::to_string(i));
    name_codec c("__", spaces);
    for (int i : {0, 1, 10, 100, 999}) {
        auto name = "u" + std::to_string(i) + "__tool_1"; // the decoded name views it
        auto d = c.decode(name);
        ASSERT_TRUE(d) << i;
        EXPECT_EQ(d->upstream, static_cast<std::size_t>(i));
        EXPECT_EQ(d->name, "tool_1");
    }
    EXPECT_FALSE(c.decode("u1000__tool_1"));
}

TEST(name_codec, a_name_of_a_million_separators_is_refused_at_once) {
    // Each separator marks a candidate prefix; none longer than the longest namespace is
    // looked up, so a hostile name costs one scan, not one hash of each of its prefixes.
    name_codec c("__", {"a", "bb"});
    const std::string hostile(1 << 20, '_');
    EXPECT_FALSE(c.decode(hostile));
    // "a", then the separator, then a name of the rest.
    EXPECT_EQ(c.decode("a" + hostile)->name.size(), hostile.size() - 2);
    const auto owned = "bb__" + hostile; // the decoded name views it
    auto d = c.decode(owned);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->name.size(), hostile.size());
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

TEST(name_codec, a_name_longer_than_the_maximum_is_listed_by_a_short_alias) {
    name_codec c("__", {"gh", "b"}, 24);
    EXPECT_EQ(c.client_name(0, "short"), "gh__short"); // fits: as encoded
    auto alias = c.client_name(0, "add_pull_request_review_comment");
    // The first 15 characters, '-', 8 hex digits of SHA-256 of the whole namespaced name.
    EXPECT_EQ(alias.size(), 24u);
    EXPECT_EQ(alias.substr(0, 16), "gh__add_pull_re-");
    EXPECT_EQ(alias, short_alias("gh__add_pull_request_review_comment", 24));
    // Deterministic, and different for a different name with the same first characters.
    EXPECT_EQ(alias, c.client_name(0, "add_pull_request_review_comment"));
    EXPECT_NE(alias, c.client_name(0, "add_pull_request_review_thread"));
    // encode never shortens (ui:// URIs go through it).
    EXPECT_EQ(c.encode(0, "add_pull_request_review_comment"),
              "gh__add_pull_request_review_comment");
}

TEST(name_codec, a_decoded_name_of_the_alias_shape_is_marked_for_reversal) {
    name_codec c("__", {"gh", "b"}, 24);
    auto alias = c.client_name(0, "add_pull_request_review_comment");
    auto d = c.decode(alias);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->upstream, 0u);
    EXPECT_TRUE(d->maybe_alias);
    EXPECT_FALSE(c.decode("gh__short")->maybe_alias);
    EXPECT_FALSE(name_codec("__", {"gh"}).decode(alias)->maybe_alias); // no maximum: no alias
    EXPECT_TRUE(has_alias_shape("gh__add_pull_re-0123abcd", 24));
    EXPECT_FALSE(has_alias_shape("gh__add_pull_re-0123abcd", 25)); // another length
    EXPECT_FALSE(has_alias_shape("gh__add_pull_re-0123ABCD", 24)); // upper-case digits
    EXPECT_FALSE(has_alias_shape("gh__add_pull_re_0123abcd", 24)); // no '-'
    EXPECT_FALSE(has_alias_shape("gh__add_pull_re-0123abcg", 24)); // not hex
}

TEST(name_codec, passthrough_shortens_too_when_a_maximum_is_set) {
    name_codec c("__", {std::nullopt}, 20);
    EXPECT_EQ(c.client_name(0, "short"), "short");
    auto alias = c.client_name(0, "a_rather_long_tool_name_indeed");
    EXPECT_EQ(alias.size(), 20u);
    EXPECT_TRUE(c.decode(alias)->maybe_alias);
}

TEST(name_codec, a_name_outside_ascii_is_never_cut) {
    name_codec c("__", {"p"}, 20);
    std::string name = "r\xc3\xa9sum\xc3\xa9_of_every_single_meeting"; // UTF-8, over 20
    EXPECT_EQ(c.client_name(0, name), "p__" + name); // listed whole: a cut could split a character
    EXPECT_FALSE(c.decode("p__" + name)->maybe_alias);
}
