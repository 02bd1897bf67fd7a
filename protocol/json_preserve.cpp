#include "protocol/json_preserve.hpp"

#include "protocol/json_splice.hpp"
#include "protocol/json_walk.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace gate::protocol {

namespace json = boost::json;
using detail::skip_spaces;
using detail::skip_string;
using detail::skip_value;

namespace {

constexpr auto npos = std::string_view::npos;

bool is_delimiter(char c) {
    return c == ',' || c == '}' || c == ']' || detail::is_json_space(c);
}

// Whether a reading of a number is `v`: the same kind, and a double to the bit.
bool same_number(const json::value& read, const json::value& v) {
    if (read.kind() != v.kind())
        return false;
    if (v.is_double()) {
        double a = read.get_double(), b = v.get_double();
        return std::memcmp(&a, &b, sizeof a) == 0;
    }
    return read == v;
}

// Whether the number token reads as `v`. Integers are compared as written first (the common
// case, no parser); anything else is read by Boost.JSON itself, so the answer is the parser's
// to the bit (its reading of 1.00000000000000000001 is 1, of -0.0 a negative zero, of 1e400
// infinity, of 123456789012345678901234567890 a double). Boost.JSON 1.81 reads some long
// decimals one bit apart depending on whether 14 or more bytes follow the number in the text
// (two paths, not exact either), so the token is read both ways.
bool number_reads_as(const json::value& v, std::string_view token) {
    char digits[24];
    if (v.is_int64() || v.is_uint64()) {
        auto r = v.is_int64() ? std::to_chars(digits, digits + sizeof digits, v.get_int64())
                              : std::to_chars(digits, digits + sizeof digits, v.get_uint64());
        if (token == std::string_view(digits, static_cast<std::size_t>(r.ptr - digits)))
            return true;
    } else if (!v.is_double()) {
        return false;
    }
    if (token.empty() || !(token[0] == '-' || (token[0] >= '0' && token[0] <= '9')))
        return false;
    boost::system::error_code ec;
    auto read = json::parse(token, ec);
    if (ec || read.kind() != v.kind())
        return false;
    if (same_number(read, v))
        return true;
    if (!v.is_double())
        return false;
    std::string room(token);
    room.append(32, ' ');
    read = json::parse(room, ec);
    return !ec && same_number(read, v);
}

// Whether the string token (quotes included) reads as `s`. Unescaped content is compared as
// it is; an escape makes the text longer than what it reads as, so content with one is read
// by the parser.
bool string_reads_as(std::string_view token, bool escaped, std::string_view s) {
    if (!escaped)
        return token.substr(1, token.size() - 2) == s;
    boost::system::error_code ec;
    auto read = json::parse(token, ec);
    return !ec && read.is_string() && read.get_string() == s;
}

std::size_t match(const json::value& v, std::string_view s, std::size_t i);

// `match` for an object at `i` (after any spaces).
std::size_t match_object(const json::object& o, std::string_view s, std::size_t i) {
    if (s[i] != '{')
        return npos;
    auto it = o.begin();
    i = skip_spaces(s, i + 1);
    if (i < s.size() && s[i] == '}')
        return it == o.end() ? i + 1 : npos;
    for (;;) {
        if (it == o.end() || i >= s.size() || s[i] != '"')
            return npos;
        bool escaped = false;
        auto key_end = detail::scan_string(s, i, escaped);
        if (key_end == npos)
            return npos;
        auto written = s.substr(i + 1, key_end - i - 2);
        if (escaped ? !key_reads_as(written, it->key()) : written != it->key())
            return npos;
        i = skip_spaces(s, key_end);
        if (i >= s.size() || s[i] != ':')
            return npos;
        i = match(it->value(), s, i + 1);
        if (i == npos)
            return npos;
        ++it;
        i = skip_spaces(s, i);
        if (i < s.size() && s[i] == ',') {
            i = skip_spaces(s, i + 1);
            continue;
        }
        return i < s.size() && s[i] == '}' && it == o.end() ? i + 1 : npos;
    }
}

// The index just past the value at `i` when it reads as `v`; npos when it does not. One pass
// over the text, however deep.
std::size_t match(const json::value& v, std::string_view s, std::size_t i) {
    i = skip_spaces(s, i);
    if (i >= s.size())
        return npos;
    switch (v.kind()) {
    case json::kind::object:
        return match_object(v.get_object(), s, i);
    case json::kind::array: {
        if (s[i] != '[')
            return npos;
        const auto& a = v.get_array();
        auto it = a.begin();
        i = skip_spaces(s, i + 1);
        if (i < s.size() && s[i] == ']')
            return it == a.end() ? i + 1 : npos;
        for (;;) {
            if (it == a.end())
                return npos;
            i = match(*it, s, i);
            if (i == npos)
                return npos;
            ++it;
            i = skip_spaces(s, i);
            if (i < s.size() && s[i] == ',') {
                ++i;
                continue;
            }
            return i < s.size() && s[i] == ']' && it == a.end() ? i + 1 : npos;
        }
    }
    case json::kind::string: {
        if (s[i] != '"')
            return npos;
        bool escaped = false;
        auto end = detail::scan_string(s, i, escaped);
        if (end == npos || !string_reads_as(s.substr(i, end - i), escaped, v.get_string()))
            return npos;
        return end;
    }
    default: {
        auto end = i;
        while (end < s.size() && !is_delimiter(s[end]))
            ++end;
        auto token = s.substr(i, end - i);
        bool same = v.is_bool()   ? token == (v.get_bool() ? "true" : "false")
                    : v.is_null() ? token == "null"
                                  : number_reads_as(v, token);
        return same ? end : npos;
    }
    }
}

void write_key(std::string_view key, std::string& out) {
    out += json::serialize(json::string_view(key.data(), key.size()));
}

// One member of a source object: its key as written (between the quotes) and its value.
struct source_member {
    std::string_view key, value;
};

// Where each key of a source object is, for members of the value that are not in the
// source's order (a member gate added or moved, a key the source wrote twice). Built only
// then, so that an object of many members costs one lookup each rather than a scan each.
class member_index {
public:
    explicit member_index(const std::vector<source_member>& members) : members_(members) {}
    const source_member* find(std::string_view key) {
        if (members_.size() <= 8) {
            for (auto m = members_.rbegin(); m != members_.rend(); ++m)
                if (key_reads_as(m->key, key))
                    return &*m;
            return nullptr;
        }
        if (!built_) {
            built_ = true;
            for (std::size_t i = 0; i < members_.size(); ++i) // the last of a key wins, as in
                by_key_[read_key(members_[i].key)] = i;       // the parsed object
        }
        auto it = by_key_.find(std::string(key));
        return it == by_key_.end() ? nullptr : &members_[it->second];
    }

private:
    static std::string read_key(std::string_view written) {
        if (written.find('\\') == npos)
            return std::string(written);
        boost::system::error_code ec;
        auto v = json::parse("\"" + std::string(written) + "\"", ec);
        return !ec && v.is_string() ? std::string(v.get_string()) : std::string(written);
    }
    const std::vector<source_member>& members_;
    bool built_ = false;
    std::unordered_map<std::string, std::size_t> by_key_;
};

void write_object(const json::object& o, std::string_view src, std::string& out) {
    std::vector<source_member> members;
    detail::walk_members(src, 0, [&](text_span k, text_span v) {
        members.push_back(
            {src.substr(k.begin, k.end - k.begin), src.substr(v.begin, v.end - v.begin)});
        return true;
    });
    member_index index(members);
    std::size_t next = 0; // members in the source's order are found without the index
    out += '{';
    bool first = true;
    for (const auto& [key, value] : o) {
        if (!first)
            out += ',';
        first = false;
        const source_member* m = nullptr;
        if (next < members.size() && key_reads_as(members[next].key, key))
            m = &members[next++];
        else
            m = index.find(key);
        if (!m) {
            write_key(key, out);
            out += ':';
            write_json(value, out);
            continue;
        }
        out.append("\"").append(m->key).append("\":");
        write_preserving(value, m->value, out);
    }
    out += '}';
}

void write_array(const json::array& a, std::string_view src, std::string& out) {
    std::vector<std::string_view> elements;
    detail::walk_elements(src, 0, [&](text_span e) {
        elements.push_back(src.substr(e.begin, e.end - e.begin));
        return true;
    });
    out += '[';
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (i > 0)
            out += ',';
        if (i < elements.size())
            write_preserving(a[i], elements[i], out);
        else
            write_json(a[i], out);
    }
    out += ']';
}

} // namespace

bool reads_as(const json::value& v, std::string_view text) {
    auto end = match(v, text, 0);
    return end != npos && skip_spaces(text, end) == text.size();
}

void write_preserving(const json::value& v, std::string_view source, std::string& out) {
    auto begin = skip_spaces(source, 0);
    if (begin >= source.size()) {
        write_json(v, out);
        return;
    }
    auto end = match(v, source, begin);
    if (end != npos) {
        out.append(source.substr(begin, end - begin));
        return;
    }
    auto src_end = skip_value(source, begin);
    if (src_end == npos) {
        write_json(v, out);
        return;
    }
    auto src = source.substr(begin, src_end - begin);
    if (v.is_object() && src[0] == '{')
        write_object(v.get_object(), src, out);
    else if (v.is_array() && src[0] == '[')
        write_array(v.get_array(), src, out);
    else
        write_json(v, out);
}

void write_preserving(const json::object& o, std::string_view source, std::string& out) {
    auto begin = skip_spaces(source, 0);
    auto end = begin < source.size() ? match_object(o, source, begin) : npos;
    if (end != npos) {
        out.append(source.substr(begin, end - begin));
        return;
    }
    auto src_end = begin < source.size() ? skip_value(source, begin) : npos;
    if (src_end != npos && source[begin] == '{')
        write_object(o, source.substr(begin, src_end - begin), out);
    else
        write_json(o, out);
}

std::string serialize_preserving(const json::value& v, std::string_view source) {
    std::string out;
    out.reserve(source.size() + 64);
    write_preserving(v, source, out);
    return out;
}

std::string one_line_preserving(const json::value& v, std::string_view source) {
    auto written = serialize_preserving(v, source);
    std::string out;
    out.reserve(written.size());
    for (std::size_t i = 0; i < written.size();) {
        if (written[i] == '"') {
            auto end = skip_string(written, i);
            end = end == npos ? written.size() : end;
            out.append(written, i, end - i);
            i = end;
            continue;
        }
        if (!detail::is_json_space(written[i]))
            out += written[i];
        ++i;
    }
    return out;
}

void write_json(const json::object& o, std::string& out) {
    out += '{';
    bool first = true;
    for (const auto& [key, member] : o) {
        if (!first)
            out += ',';
        first = false;
        write_key(key, out);
        out += ':';
        write_json(member, out);
    }
    out += '}';
}

void write_json(const json::value& v, std::string& out) {
    switch (v.kind()) {
    case json::kind::object:
        write_json(v.get_object(), out);
        return;
    case json::kind::array: {
        out += '[';
        bool first = true;
        for (const auto& e : v.get_array()) {
            if (!first)
                out += ',';
            first = false;
            write_json(e, out);
        }
        out += ']';
        return;
    }
    case json::kind::double_:
        if (std::isinf(v.get_double())) {
            out += v.get_double() > 0 ? "1e999" : "-1e999";
            return;
        }
        if (std::isnan(v.get_double())) { // what the parser makes of 0e400 (0 times infinity)
            out += "0e999";
            return;
        }
        [[fallthrough]];
    default:
        out += json::serialize(v);
        return;
    }
}

} // namespace gate::protocol
