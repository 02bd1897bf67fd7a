// protocol/tool_index: the words a tool is found by, BM25's ranking with the name weighted
// above the description, and the caller's filter asked before a tool is returned.
#include "protocol/tool_index.hpp"

#include <gtest/gtest.h>

using gate::protocol::index_words;
using gate::protocol::tool_index;

namespace {

std::vector<std::uint32_t> ids(const std::vector<tool_index::hit>& hits) {
    std::vector<std::uint32_t> out;
    for (const auto& h : hits)
        out.push_back(h.tool);
    return out;
}

const auto anyone = [](std::uint32_t) { return true; };

tool_index sample() {
    tool_index idx;
    idx.add("files__read_file", "Read file", "Reads a file from the disk and returns its text.");
    idx.add("files__write_file", "", "Writes text to a file on the disk.");
    idx.add("mail__send", "Send mail", "Sends an email to one or more recipients.");
    idx.add("weather__forecast", "", "The weather forecast for a city, by day.");
    idx.add("tickets__open", "", "Opens a ticket; mentions email when it notifies.");
    return idx;
}

} // namespace

TEST(tool_index, words_are_split_at_punctuation_case_and_non_ascii_lowered_common_ones_dropped) {
    EXPECT_EQ(index_words("readFile get_weather-v2"),
              (std::vector<std::string>{"read", "file", "get", "weather", "v2"}));
    EXPECT_EQ(index_words("The README of a repo"), (std::vector<std::string>{"readme", "repo"}));
    EXPECT_EQ(index_words("caf\xC3\xA9 na\xC3\xAFve"),
              (std::vector<std::string>{"caf", "na", "ve"}));
    EXPECT_EQ(index_words(std::string(100, 'x'))[0].size(), tool_index::max_word);
    EXPECT_TRUE(index_words(" ,;!\x01").empty());
    EXPECT_EQ(index_words("Reads files, status, class, sends"),
              (std::vector<std::string>{"read", "file", "status", "class", "send"}));
}

TEST(tool_index, the_best_match_comes_first_and_a_name_outweighs_a_description) {
    auto idx = sample();
    EXPECT_EQ(ids(idx.search("read a file", 3, anyone)).front(), 0u);
    EXPECT_EQ(ids(idx.search("send email", 3, anyone)), (std::vector<std::uint32_t>{2, 4}));
    EXPECT_EQ(ids(idx.search("Weather", 3, anyone)), (std::vector<std::uint32_t>{3}));
    // "write" is in one name; "disk" in two descriptions.
    EXPECT_EQ(ids(idx.search("write disk", 5, anyone)).front(), 1u);
    auto hits = idx.search("file", 5, anyone);
    ASSERT_EQ(hits.size(), 2u);
    EXPECT_GT(hits[0].score, 0.0F);
    EXPECT_GE(hits[0].score, hits[1].score);
}

TEST(tool_index, the_callers_filter_is_asked_in_rank_order_and_never_overruled) {
    auto idx = sample();
    std::vector<std::uint32_t> asked;
    auto not_read = [&](std::uint32_t t) {
        asked.push_back(t);
        return t != 0;
    };
    EXPECT_EQ(ids(idx.search("read file", 1, not_read)), (std::vector<std::uint32_t>{1}));
    EXPECT_EQ(asked, (std::vector<std::uint32_t>{0, 1}))
        << "asked best first, stopped at the limit";
    EXPECT_TRUE(idx.search("read file", 5, [](std::uint32_t) { return false; }).empty());
}

TEST(tool_index, nothing_matches_nothing_is_returned) {
    auto idx = sample();
    EXPECT_TRUE(idx.search("", 5, anyone).empty());
    EXPECT_TRUE(idx.search("kubernetes", 5, anyone).empty());
    EXPECT_TRUE(idx.search("the of a", 5, anyone).empty());
    EXPECT_TRUE(idx.search("file", 0, anyone).empty());
    EXPECT_TRUE(tool_index{}.search("file", 5, anyone).empty());
}

TEST(tool_index, many_tools_rank_by_the_rarer_word) {
    tool_index idx;
    for (int i = 0; i < 5000; ++i)
        idx.add("ns" + std::to_string(i) + "__get_item", "", "Gets an item from the store.");
    idx.add("billing__get_invoice", "", "Gets an invoice from the store.");
    auto hits = idx.search("get invoice", 3, anyone);
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(hits[0].tool, 5000u);
    EXPECT_EQ(hits.size(), 3u);
}
