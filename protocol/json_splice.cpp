#include "protocol/json_splice.hpp"

#include <cstring>

namespace gate::protocol {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Index just past the string that starts at `i` (a quote), or npos. A tool's answer is
// mostly string content (a file, a page), so the closing quote is looked for with memchr
// rather than byte by byte: it is the first quote preceded by an even number of
// backslashes (each pair inside a valid string is one escaped backslash).
std::size_t skip_string(std::string_view s, std::size_t i) {
    const char* const content = s.data() + i + 1;
    const char* const end = s.data() + s.size();
    for (const char* p = content; p < end;) {
        const auto* quote = static_cast<const char*>(std::memchr(p, '"', end - p));
        if (!quote)
            break;
        std::size_t backslashes = 0;
        for (const char* b = quote; b > content && b[-1] == '\\'; --b)
            ++backslashes;
        if (backslashes % 2 == 0)
            return static_cast<std::size_t>(quote - s.data()) + 1;
        p = quote + 1;
    }
    return std::string_view::npos;
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

} // namespace

std::optional<text_span> find_top_level_member(std::string_view s, std::string_view key) {
    auto i = skip_spaces(s, 0);
    if (i >= s.size() || s[i] != '{')
        return std::nullopt;
    i = skip_spaces(s, i + 1);
    std::optional<text_span> found;
    while (i < s.size() && s[i] == '"') {
        auto key_end = skip_string(s, i);
        if (key_end == std::string_view::npos)
            return std::nullopt;
        // Keys are compared as written: escaped spellings of "id" are not expected from
        // upstreams and at worst fall back to re-serialization.
        bool match = s.substr(i + 1, key_end - i - 2) == key;
        i = skip_spaces(s, key_end);
        if (i >= s.size() || s[i] != ':')
            return std::nullopt;
        auto value_begin = skip_spaces(s, i + 1);
        auto value_end = skip_value(s, value_begin);
        if (value_end == std::string_view::npos)
            return std::nullopt;
        if (match) {
            // A member written twice is ambiguous (parsers keep one or the other): no span,
            // so the caller writes the parsed value out instead of splicing one of them.
            if (found)
                return std::nullopt;
            found = text_span{value_begin, value_end};
        }
        i = skip_spaces(s, value_end);
        if (i < s.size() && s[i] == ',')
            i = skip_spaces(s, i + 1);
        else
            break;
    }
    return found;
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
