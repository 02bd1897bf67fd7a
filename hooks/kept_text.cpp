#include "hooks/kept_text.hpp"

namespace gate::hooks {

namespace {

constexpr std::string_view replacement = "\xEF\xBF\xBD";

bool continuation(unsigned char c) {
    return (c & 0xC0) == 0x80;
}

// The length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629, section 4), or
// 0 when there is none.
std::size_t sequence_length(std::string_view s) {
    auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    unsigned char c = b(0);
    if (c >= 0x01 && c <= 0x7F)
        return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF; // the range allowed for the second byte
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0; // no overlong forms
        if (c == 0xED)
            hi = 0x9F; // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F; // nothing past U+10FFFF
    } else
        return 0;
    if (s.size() < n || b(1) < lo || b(1) > hi)
        return 0;
    for (std::size_t i = 2; i < n; ++i)
        if (!continuation(b(i)))
            return 0;
    return n;
}

} // namespace

std::string kept_text(std::string_view bytes, std::size_t max_bytes) {
    std::string out;
    out.reserve(std::min(bytes.size(), max_bytes));
    while (!bytes.empty()) {
        std::size_t n = sequence_length(bytes);
        std::string_view piece = n ? bytes.substr(0, n) : replacement;
        if (out.size() + piece.size() > max_bytes)
            break;
        out += piece;
        bytes.remove_prefix(n ? n : 1);
    }
    return out;
}

} // namespace gate::hooks
