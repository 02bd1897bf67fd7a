// A search index over a federation's tools (issue 50, tool search): each tool's name, title
// and description as words, ranked for a query by BM25 with the fields weighted (a word of the
// name counts three times one of the description, one of the title twice), so a client
// handed ten thousand tools asks for the few it needs instead of listing them all. Plain C++;
// built once per list the federation serves, searched in the tools router (one message at a
// time: the reused score buffers below need no lock). Which tools a caller
// may call is the caller's (the policy): search() asks it of each candidate, best first, and
// never returns one it refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gate::protocol {

// The words of `text` as the index knows them: runs of ASCII letters and digits, split where
// a lower-case letter meets an upper-case one ("readFile" is "read", "file"), lower-cased, at
// most max_word bytes each (longer ones cut), a final -s of a longer word dropped (reads,
// files; not status, class or this), common English words left out. Bytes outside ASCII
// separate words.
std::vector<std::string> index_words(std::string_view text);

class tool_index {
public:
    static constexpr std::size_t max_word = 32;
    static constexpr std::size_t max_query_words = 16;

    // Adds the tool with id size() (its place in the list the index was built from).
    void add(std::string_view name, std::string_view title, std::string_view description);
    std::size_t size() const { return lengths_.size(); }

    struct hit {
        std::uint32_t tool;
        float score;
    };
    // The best `limit` tools for `query` that `allowed` accepts, best first (ties by id): only
    // tools sharing a word with the query are candidates, and `allowed` is asked of them in
    // rank order until `limit` are found.
    std::vector<hit> search(std::string_view query, std::size_t limit,
                            const std::function<bool(std::uint32_t)>& allowed) const;

private:
    struct posting {
        std::uint32_t tool;
        float weight; // the word's weighted count in the tool
    };
    std::unordered_map<std::string, std::uint32_t> words_; // word -> its postings' index
    std::vector<std::vector<posting>> postings_;
    std::vector<float> lengths_; // each tool's weighted length
    double total_length_ = 0;
    mutable std::vector<float> scores_; // one query's, reused (its router searches one at a time)
    mutable std::vector<std::uint32_t> touched_;
};

} // namespace gate::protocol
