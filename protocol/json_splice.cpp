#include "protocol/json_splice.hpp"

#include "protocol/json_scan.hpp"

namespace gate::protocol {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Index just past the string that starts at `i` (a quote), or npos. A tool's answer is
// mostly string content (a file, a page), so it is passed over 16 bytes at a time up to the
// next quote or backslash.
std::size_t skip_string(std::string_view s, std::size_t i) {
    const char* p = s.data() + i + 1;
    const char* const end = s.data() + s.size();
    for (;;) {
        p = detail::skip_plain_blocks(p, end, false);
        if (p >= end)
            return std::string_view::npos;
        if (*p == '"')
            return static_cast<std::size_t>(p - s.data()) + 1;
        if (*p == '\\') {
            if (end - p < 2)
                return std::string_view::npos;
            p += 2;
        } else {
            ++p;
        }
    }
}

// Index just past the value that starts at `i`, or npos.
std::size_t skip_value(std::string_view s, std::size_t i) {
    if (i >= s.size())
        return std::string_view::npos;
    if (s[i] == '"')
        return skip_string(s, i);
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        for (; i < s.size(); ++i) {
            char c = s[i];
            if (c == '"') {
                i = skip_string(s, i);
                if (i == std::string_view::npos)
                    return i;
                --i;
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if (c == '}' || c == ']') {
                if (--depth == 0)
                    return i + 1;
            }
        }
        return std::string_view::npos;
    }
    // number, true, false, null
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !is_space(s[i]))
        ++i;
    return i;
}

std::size_t skip_spaces(std::string_view s, std::size_t i) {
    while (i < s.size() && is_space(s[i]))
        ++i;
    return i;
}

// How a walk over an object's top-level members ended.
enum class walk { closed, unclosed, stopped, malformed };

// Calls `on_member(key, value)` for each top-level member of the object `s` holds, in order,
// until it returns false (stopped). `unclosed`: the members ended without the closing brace.
template <class OnMember> walk walk_members(std::string_view s, OnMember on_member) {
    auto i = skip_spaces(s, 0);
    if (i >= s.size() || s[i] != '{')
        return walk::malformed;
    i = skip_spaces(s, i + 1);
    while (i < s.size() && s[i] == '"') {
        auto key_end = skip_string(s, i);
        if (key_end == std::string_view::npos)
            return walk::malformed;
        text_span key{i + 1, key_end - 1};
        i = skip_spaces(s, key_end);
        if (i >= s.size() || s[i] != ':')
            return walk::malformed;
        auto value_begin = skip_spaces(s, i + 1);
        auto value_end = skip_value(s, value_begin);
        if (value_end == std::string_view::npos)
            return walk::malformed;
        if (!on_member(key, text_span{value_begin, value_end}))
            return walk::stopped;
        i = skip_spaces(s, value_end);
        if (i < s.size() && s[i] == ',')
            i = skip_spaces(s, i + 1);
        else
            break;
    }
    return i < s.size() && s[i] == '}' ? walk::closed : walk::unclosed;
}

} // namespace

std::optional<text_span> find_top_level_member(std::string_view s, std::string_view key) {
    std::optional<text_span> found;
    // Keys are compared as written: escaped spellings of "id" are not expected from
    // upstreams and at worst fall back to re-serialization.
    auto end = walk_members(s, [&](text_span k, text_span value) {
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
    auto end = walk_members(s, [&](text_span key, text_span value) {
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

} // namespace gate::protocol
