#include "protocol/tool_index.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace gate::protocol {

namespace {

// BM25's usual constants; the fields' weights (name, title, description).
constexpr float k1 = 1.2F;
constexpr float b = 0.75F;
constexpr float name_weight = 3.0F;
constexpr float title_weight = 2.0F;
constexpr float description_weight = 1.0F;

constexpr std::array<std::string_view, 32> common_words = {
    "a",   "an",   "and",  "are", "as",  "at",   "be", "by",   "for",   "from", "has",
    "in",  "is",   "it",   "its", "of",  "on",   "or", "that", "the",   "this", "to",
    "was", "will", "with", "can", "you", "your", "if", "not",  "given", "into"};

bool common(std::string_view w) {
    return std::find(common_words.begin(), common_words.end(), w) != common_words.end();
}

bool alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool upper(char c) {
    return c >= 'A' && c <= 'Z';
}
bool lower(char c) {
    return c >= 'a' && c <= 'z';
}

} // namespace

std::vector<std::string> index_words(std::string_view text) {
    std::vector<std::string> out;
    std::string word;
    auto flush = [&] {
        // A plural's or a verb's -s (reads, files, sends) is the word's; status is not.
        if (word.size() > 3 && word.back() == 's' && !word.ends_with("ss") &&
            !word.ends_with("us") && !word.ends_with("is"))
            word.pop_back();
        if (!word.empty() && !common(word))
            out.push_back(word);
        word.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (!alnum(c)) {
            flush();
            continue;
        }
        if (upper(c) && i > 0 && lower(text[i - 1]))
            flush(); // camelCase: a new word
        if (word.size() < tool_index::max_word)
            word.push_back(upper(c) ? static_cast<char>(c - 'A' + 'a') : c);
    }
    flush();
    return out;
}

void tool_index::add(std::string_view name, std::string_view title, std::string_view description) {
    auto id = static_cast<std::uint32_t>(lengths_.size());
    std::unordered_map<std::string, float> counts;
    float length = 0;
    for (auto [text, weight] : {std::pair{name, name_weight}, std::pair{title, title_weight},
                                std::pair{description, description_weight}})
        for (auto& w : index_words(text)) {
            counts[std::move(w)] += weight;
            length += weight;
        }
    for (auto& [w, weight] : counts) {
        auto [it, fresh] = words_.try_emplace(w, static_cast<std::uint32_t>(postings_.size()));
        if (fresh)
            postings_.emplace_back();
        postings_[it->second].push_back({id, weight});
    }
    lengths_.push_back(length);
    total_length_ += length;
}

std::vector<tool_index::hit>
tool_index::search(std::string_view query, std::size_t limit,
                   const std::function<bool(std::uint32_t)>& allowed) const {
    std::vector<hit> out;
    if (lengths_.empty() || limit == 0)
        return out;
    auto words = index_words(query);
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    if (words.size() > max_query_words)
        words.resize(max_query_words);
    scores_.assign(lengths_.size(), 0.0F);
    touched_.clear();
    auto n = static_cast<double>(lengths_.size());
    auto average = static_cast<float>(total_length_ / n);
    for (const auto& w : words) {
        auto it = words_.find(w);
        if (it == words_.end())
            continue;
        const auto& list = postings_[it->second];
        auto df = static_cast<double>(list.size());
        auto idf = static_cast<float>(std::log(1.0 + (n - df + 0.5) / (df + 0.5)));
        for (const auto& p : list) {
            float norm = k1 * (1.0F - b + b * lengths_[p.tool] / average);
            if (scores_[p.tool] == 0.0F)
                touched_.push_back(p.tool);
            scores_[p.tool] += idf * p.weight * (k1 + 1.0F) / (p.weight + norm);
        }
    }
    auto better = [this](std::uint32_t x, std::uint32_t y) {
        return scores_[x] != scores_[y] ? scores_[x] > scores_[y] : x < y;
    };
    // Best first, a slice at a time: most queries need only the first few candidates.
    std::size_t sorted = 0;
    for (std::size_t i = 0; i < touched_.size() && out.size() < limit; ++i) {
        if (i == sorted) {
            sorted = std::min(touched_.size(), sorted + std::max<std::size_t>(limit * 4, 32));
            std::partial_sort(touched_.begin() + static_cast<std::ptrdiff_t>(i),
                              touched_.begin() + static_cast<std::ptrdiff_t>(sorted),
                              touched_.end(), better);
        }
        auto tool = touched_[i];
        if (allowed(tool))
            out.push_back({tool, scores_[tool]});
    }
    return out;
}

} // namespace gate::protocol
