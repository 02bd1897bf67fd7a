#include "protocol/json_splice.hpp"

#include "protocol/json_walk.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cstring>

namespace gate::protocol {

using detail::walk;
using detail::walk_members;

std::optional<text_span> find_top_level_member(std::string_view s, std::string_view key) {
    std::optional<text_span> found;
    // Keys are compared as written: escaped spellings of "id" are not expected from
    // upstreams and at worst fall back to re-serialization.
    auto end = walk_members(s, 0, [&](text_span k, text_span value) {
        if (s.substr(k.begin, k.end - k.begin) != key)
            return true;
        // A member written twice is ambiguous (parsers keep one or the other): no span, so
        // the caller writes the parsed value out instead of splicing one of them.
        if (found)
            return false;
        found = value;
        return true;
    });
    if (end == walk::malformed || end == walk::stopped)
        return std::nullopt;
    return found;
}

object_members::object_members(std::string_view s) {
    bool plain = true;
    auto end = walk_members(s, 0, [&](text_span key, text_span value) {
        // An escaped key: compared as written it could hide a duplicate.
        plain = s.substr(key.begin, key.end - key.begin).find('\\') == std::string_view::npos;
        if (plain)
            add(key, value);
        return plain;
    });
    complete(end == walk::closed);
}

void object_members::add(text_span key, text_span value) {
    constexpr std::size_t limit = UINT32_MAX;
    if (value.end > limit || count_ == members_.size()) {
        too_long_ = true;
        return;
    }
    members_[count_++] = {
        static_cast<std::uint32_t>(key.begin), static_cast<std::uint32_t>(key.end),
        static_cast<std::uint32_t>(value.begin), static_cast<std::uint32_t>(value.end)};
}

object_members::lookup object_members::find(std::string_view json, std::string_view key,
                                            text_span& value) const {
    if (!complete_)
        return lookup::unknown;
    bool found = false;
    for (std::size_t i = 0; i < count_; ++i) {
        const auto& m = members_[i];
        if (json.substr(m.key_begin, m.key_end - m.key_begin) != key)
            continue;
        if (found)
            return lookup::unknown; // written twice
        found = true;
        value = {m.value_begin, m.value_end};
    }
    return found ? lookup::found : lookup::absent;
}

std::optional<std::string> replace_top_level_member(std::string_view json, std::string_view key,
                                                    std::string_view value_text) {
    auto span = find_top_level_member(json, key);
    if (!span)
        return std::nullopt;
    std::string out;
    out.reserve(json.size() + value_text.size());
    out.append(json.substr(0, span->begin)).append(value_text).append(json.substr(span->end));
    return out;
}

bool key_reads_as(std::string_view written, std::string_view key) {
    if (written.find('\\') == std::string_view::npos)
        return written == key;
    // Escaped (rare): read as the parser reads it. `written` came from a text that parsed.
    std::string quoted;
    quoted.reserve(written.size() + 2);
    quoted.append("\"").append(written).append("\"");
    boost::system::error_code ec;
    auto v = boost::json::parse(quoted, ec);
    return !ec && v.is_string() && v.get_string() == key;
}

namespace {

// Whether the text writes some ASCII letter as a `\u` escape (`\u0041`-`\u007a`; a superset:
// `\u004x` to `\u007x`). Backslashes are rare in an answer; each starts an escape of its own
// (`\\u` is a backslash, then a `u`). Escapes of other characters (`\u003c`, as some writers
// spell `<`) spell no letter of a key.
bool writes_an_escaped_letter(std::string_view json) {
    std::size_t i = 0;
    while ((i = json.find('\\', i)) != std::string_view::npos) {
        auto escape = json.substr(i, 6);
        if (escape.size() == 6 && escape[1] == 'u' && escape[2] == '0' && escape[3] == '0' &&
            escape[4] >= '4' && escape[4] <= '7')
            return true;
        i += 2;
    }
    return false;
}

// The letter of `key` least often seen in text (by English letter frequency), to search
// for: memchr over an answer costs a few instructions per 32 bytes, memmem several per byte.
std::size_t rarest_letter(std::string_view key) {
    static constexpr std::string_view commonest_first = "etaoinsrhldcumfpgwybvkxjqz";
    std::size_t at = 0, rank = 0;
    for (std::size_t i = 0; i < key.size(); ++i) {
        auto r = commonest_first.find(static_cast<char>(key[i] | 0x20));
        if (r != std::string_view::npos && r >= rank) {
            rank = r;
            at = i;
        }
    }
    return at;
}

// Whether `"key"` is written in the text as it is.
bool writes_quoted(std::string_view json, std::string_view key) {
    const std::size_t at = rarest_letter(key);
    const char* const begin = json.data();
    const char* const end = begin + json.size();
    for (const char* p = begin + at + 1; p < end; ++p) {
        p = static_cast<const char*>(std::memchr(p, key[at], static_cast<std::size_t>(end - p)));
        if (p == nullptr)
            return false;
        const char* k = p - at; // where the key would begin
        if (static_cast<std::size_t>(end - k) > key.size() && k[-1] == '"' &&
            k[key.size()] == '"' && std::string_view(k, key.size()) == key)
            return true;
    }
    return false;
}

} // namespace

// `key` is of ASCII letters (the members searched for are): a letter is written as itself or
// as a `\u` escape, and nothing else JSON allows spells one.
bool may_name(std::string_view json, std::string_view key) {
    return !key.empty() && json.size() > key.size() + 1 &&
           (writes_quoted(json, key) || writes_an_escaped_letter(json));
}

std::optional<std::size_t> find_spelled_member(std::string_view s, std::string_view key) {
    if (key.empty())
        return std::nullopt;
    const char* const end = s.data() + s.size();
    for (const char* p = s.data();; ++p) {
        p = detail::find_pair(p, end, '"', key.front());
        if (static_cast<std::size_t>(end - p) < key.size() + 2)
            return std::nullopt;
        if (std::string_view(p + 1, key.size()) != key || p[key.size() + 1] != '"')
            continue;
        auto i = detail::skip_spaces(s, static_cast<std::size_t>(p - s.data()) + key.size() + 2);
        if (i < s.size() && s[i] == ':')
            return detail::skip_spaces(s, i + 1);
    }
}

namespace {

// How member `key` of the object at [at, ...) reads: found once (its span), absent, or not
// decidable (not an object, written twice).
enum class member_state { found, absent, unknown };

member_state find_in_object(std::string_view s, std::size_t at, std::string_view key,
                            text_span& value) {
    bool found = false;
    auto end = walk_members(s, at, [&](text_span k, text_span v) {
        if (!key_reads_as(s.substr(k.begin, k.end - k.begin), key))
            return true;
        if (found)
            return false; // twice
        found = true;
        value = v;
        return true;
    });
    if (end != walk::closed)
        return member_state::unknown;
    return found ? member_state::found : member_state::absent;
}

// The span of the value at the path [first, last); the whole text for an empty path.
std::optional<text_span> value_at(std::string_view s, const std::string_view* first,
                                  const std::string_view* last) {
    text_span at{detail::skip_spaces(s, 0), s.size()};
    for (; first != last; ++first) {
        const auto step = *first;
        text_span next{};
        if (find_in_object(s, at.begin, step, next) != member_state::found)
            return std::nullopt;
        at = next;
    }
    return at;
}

} // namespace

std::optional<text_span> find_member(std::string_view s,
                                     std::initializer_list<std::string_view> path) {
    if (path.size() == 0)
        return std::nullopt;
    auto parent = value_at(s, path.begin(), path.end() - 1);
    text_span value{};
    if (!parent ||
        find_in_object(s, parent->begin, *(path.end() - 1), value) != member_state::found)
        return std::nullopt;
    return value;
}

std::optional<std::vector<std::string_view>>
element_texts(std::string_view s, std::initializer_list<std::string_view> path) {
    auto at = value_at(s, path.begin(), path.end());
    if (!at)
        return std::nullopt;
    std::vector<std::string_view> out;
    auto end = detail::walk_elements(s, at->begin, [&](text_span e) {
        out.push_back(s.substr(e.begin, e.end - e.begin));
        return true;
    });
    if (end != walk::closed)
        return std::nullopt;
    return out;
}

std::optional<std::string> set_member(std::string_view s,
                                      std::initializer_list<std::string_view> path,
                                      std::string_view key, std::string_view value_text) {
    auto parent = value_at(s, path.begin(), path.end());
    if (!parent || parent->begin >= s.size() || s[parent->begin] != '{')
        return std::nullopt;
    text_span value{};
    auto state = find_in_object(s, parent->begin, key, value);
    std::string out;
    if (state == member_state::found) {
        out.reserve(s.size() + value_text.size());
        out.append(s.substr(0, value.begin)).append(value_text).append(s.substr(value.end));
        return out;
    }
    if (state != member_state::absent)
        return std::nullopt;
    // The object's closing brace: the last byte of its span (the walk found it closed).
    auto close = detail::skip_value(s, parent->begin) - 1;
    bool empty = detail::skip_spaces(s, parent->begin + 1) == close;
    auto quoted = boost::json::serialize(boost::json::string_view(key.data(), key.size()));
    out.reserve(s.size() + quoted.size() + value_text.size() + 2);
    out.append(s.substr(0, close));
    if (!empty)
        out.append(",");
    out.append(quoted).append(":").append(value_text).append(s.substr(close));
    return out;
}

} // namespace gate::protocol
