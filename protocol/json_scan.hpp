// Passing over JSON string content 16 bytes at a time: shared by the JSON check (which must
// look at every control character and multi-byte character too) and the member scans of
// json_splice (which only need a string's end); and finding a two-byte spelling the same way.
#pragma once

#include <cstddef>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gate::protocol::detail {

// `p` moved over whole 16-byte blocks of string content that hold no quote and no backslash
// (and, with `every_special`, no byte below 0x20 or above 0x7F): it stops at the first such
// byte, or where fewer than 16 bytes are left; the caller reads on byte by byte from there.
template <class Char>
const Char* skip_plain_blocks(const Char* p, const Char* end, bool every_special) {
#if defined(__SSE2__)
    while (end - p >= 16) {
        auto v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        auto special = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                    _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
        if (every_special) // signed: bytes of multi-byte characters are below 0x20 too
            special = _mm_or_si128(special, _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
        int mask = _mm_movemask_epi8(special);
        if (mask != 0)
            return p + __builtin_ctz(static_cast<unsigned>(mask));
        p += 16;
    }
#else
    (void)end;
    (void)every_special;
#endif
    return p;
}

// The first place at or after `p` where `a` is followed by `b`, or `end` (16 places at a
// time: a pair is looked for in a request's few hundred bytes on every call).
inline const char* find_pair(const char* p, const char* end, char a, char b) {
#if defined(__SSE2__)
    const auto va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
    while (end - p >= 17) {
        auto first = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), va);
        auto second = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1)), vb);
        int mask = _mm_movemask_epi8(_mm_and_si128(first, second));
        if (mask != 0)
            return p + __builtin_ctz(static_cast<unsigned>(mask));
        p += 16;
    }
#endif
    for (; end - p >= 2; ++p)
        if (p[0] == a && p[1] == b)
            return p;
    return end;
}

} // namespace gate::protocol::detail
