#include "protocol/json_splice.hpp"

#include "protocol/json_walk.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

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
