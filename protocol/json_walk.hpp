// Walking the text of a valid JSON value without building anything: where a value ends, and
// the members of an object or the elements of an array as spans of the text. Shared by the
// splice (json_splice: a member replaced in place) and the preserving writer (json_preserve:
// a changed value written back with its unchanged parts as their source wrote them). The text
// must be JSON that parsed (checked before): the walk is lenient and only never reads past
// the end.
#pragma once

#include "protocol/json_scan.hpp"

#include <cstddef>
#include <string_view>

namespace gate::protocol {

struct text_span {
    std::size_t begin, end; // [begin, end) of a value (or of a key's content)
};

namespace detail {

inline bool is_json_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

inline std::size_t skip_spaces(std::string_view s, std::size_t i) {
    while (i < s.size() && is_json_space(s[i]))
        ++i;
    return i;
}

// Index just past the string that starts at `i` (a quote), or npos. A tool's answer is
// mostly string content (a file, a page), so it is passed over 16 bytes at a time up to the
// next quote or backslash.
inline std::size_t skip_string(std::string_view s, std::size_t i) {
    const char* p = s.data() + i + 1;
    const char* const end = s.data() + s.size();
    for (;;) {
        p = skip_plain_blocks(p, end, false);
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

// skip_string that also says whether the string holds an escape (then its text is not what
// it reads as), in the same pass.
inline std::size_t scan_string(std::string_view s, std::size_t i, bool& escaped) {
    const char* p = s.data() + i + 1;
    const char* const end = s.data() + s.size();
    for (;;) {
        p = skip_plain_blocks(p, end, false);
        if (p >= end)
            return std::string_view::npos;
        if (*p == '"')
            return static_cast<std::size_t>(p - s.data()) + 1;
        if (*p == '\\') {
            escaped = true;
            if (end - p < 2)
                return std::string_view::npos;
            p += 2;
        } else {
            ++p;
        }
    }
}

// Index just past the value that starts at `i`, or npos.
inline std::size_t skip_value(std::string_view s, std::size_t i) {
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
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !is_json_space(s[i]))
        ++i;
    return i;
}

// How a walk over a container's members or elements ended.
enum class walk { closed, unclosed, stopped, malformed };

// Calls `on_member(key, value)` for each member of the object whose text starts at `i` (its
// opening brace, after any spaces), in order, until it returns false (stopped). Key spans
// hold the key's content, without its quotes. `unclosed`: the members ended without the
// closing brace.
template <class OnMember> walk walk_members(std::string_view s, std::size_t i, OnMember on_member) {
    i = skip_spaces(s, i);
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

// The same over the elements of the array whose text starts at `i`.
template <class OnElement>
walk walk_elements(std::string_view s, std::size_t i, OnElement on_element) {
    i = skip_spaces(s, i);
    if (i >= s.size() || s[i] != '[')
        return walk::malformed;
    i = skip_spaces(s, i + 1);
    while (i < s.size() && s[i] != ']') {
        auto end = skip_value(s, i);
        if (end == std::string_view::npos || end == i)
            return walk::malformed;
        if (!on_element(text_span{i, end}))
            return walk::stopped;
        i = skip_spaces(s, end);
        if (i < s.size() && s[i] == ',')
            i = skip_spaces(s, i + 1);
        else
            break;
    }
    return i < s.size() && s[i] == ']' ? walk::closed : walk::unclosed;
}

} // namespace detail

} // namespace gate::protocol
