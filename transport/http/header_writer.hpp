// The one place gate writes a header field into a request or an answer, whoever reads it:
// upstreams, token endpoints, discovery sources, audit and OTLP receivers, webhook receivers
// and clients. A value that could end its line (CR, LF) or confuse a parser (any other
// control character, NUL included) never reaches the wire: the field is refused and the
// caller decides what a refusal means (the request is not sent, the field is left out).
// Why one writer: a method name written into `Mcp-Method` as it came once smuggled a second
// request, with gate's credential, to an upstream (docs/security.md).
//
// Every proxied call writes half a dozen fields, so the checks are cheap: a name written as a
// literal is checked when gate is compiled (`header_name`), a value 16 bytes at a time.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gate::transport {

namespace detail {

// RFC 9110 section 5.6.2: tchar.
constexpr std::array<bool, 256> tchar_table = [] {
    std::array<bool, 256> t{};
    for (int c = '0'; c <= '9'; ++c)
        t[c] = true;
    for (int c = 'a'; c <= 'z'; ++c)
        t[c] = t[c - 'a' + 'A'] = true;
    for (char c : std::string_view("!#$%&'*+-.^_`|~"))
        t[static_cast<unsigned char>(c)] = true;
    return t;
}();

constexpr bool token(std::string_view s) noexcept {
    if (s.empty())
        return false;
    for (char c : s)
        if (!tchar_table[static_cast<unsigned char>(c)])
            return false;
    return true;
}

} // namespace detail

// RFC 9110 section 5.1: a field name is a token (visible ASCII but delimiters).
inline bool header_name_valid(std::string_view name) noexcept {
    return detail::token(name);
}

// RFC 9110 section 5.5: visible bytes, obs-text, spaces and tabs; no control character (below
// 0x20 but tab, and 0x7F).
inline bool header_value_valid(std::string_view value) noexcept {
    const char* p = value.data();
    const char* end = p + value.size();
#if defined(__SSE2__)
    const auto below_space = _mm_set1_epi8(0x1f), tab = _mm_set1_epi8('\t'),
               del = _mm_set1_epi8(0x7f);
    for (; end - p >= 16; p += 16) {
        auto v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        // Unsigned c <= 0x1F: min(c, 0x1F) == c. obs-text (0x80 and up) passes.
        auto control = _mm_cmpeq_epi8(_mm_min_epu8(v, below_space), v);
        control = _mm_andnot_si128(_mm_cmpeq_epi8(v, tab), control);
        control = _mm_or_si128(control, _mm_cmpeq_epi8(v, del));
        if (_mm_movemask_epi8(control) != 0)
            return false;
    }
#endif
    for (; p != end; ++p) {
        auto c = static_cast<unsigned char>(*p);
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return false;
    }
    return true;
}

// A field name written as a literal, checked when gate is compiled: a name that is not a
// token does not build.
class header_name {
public:
    template <std::size_t N>
    consteval header_name(const char (&literal)[N]) : text_(literal, N - 1) {
        if (!detail::token(text_))
            throw "a header name must be an RFC 9110 token";
    }
    constexpr std::string_view text() const noexcept { return text_; }

private:
    std::string_view text_;
};

// Appends `name: value\r\n` fields to a head being written (the request or status line is
// already there, the blank line and the body come after).
class header_writer {
public:
    explicit header_writer(std::string& wire) : wire_(wire) {}

    // False, and nothing written, when the value holds a control character; the first
    // refused name is kept for the caller's message.
    bool field(header_name name, std::string_view value) {
        if (!header_value_valid(value)) {
            refuse(name.text());
            return false;
        }
        append(name.text(), value);
        return true;
    }
    // The same for a name known only at run time, which must be a token too.
    bool field_named(std::string_view name, std::string_view value);
    // A field prepared as one `Name: value` line (a credential).
    bool line(std::string_view name_and_value);

    bool ok() const noexcept { return refused_.empty(); }
    // The name of the first field refused (never its value: it may be a secret).
    const std::string& refused() const noexcept { return refused_; }

private:
    void append(std::string_view name, std::string_view value) {
        wire_.append(name).append(": ").append(value).append("\r\n");
    }
    void refuse(std::string_view name);

    std::string& wire_;
    std::string refused_;
};

// The same check for a Beast message's fields; `Name` is a `http::field` or a string.
template <class Fields, class Name>
bool set_header(Fields& fields, const Name& name, std::string_view value) {
    if constexpr (std::is_convertible_v<const Name&, std::string_view>) {
        if (!header_name_valid(name))
            return false;
    }
    if (!header_value_valid(value))
        return false;
    fields.set(name, value);
    return true;
}

} // namespace gate::transport
