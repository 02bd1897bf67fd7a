// Passing over JSON string content 16 bytes at a time: shared by the JSON check (which must
// look at every control character and multi-byte character too) and the member scans of
// json_splice (which only need a string's end).
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

} // namespace gate::protocol::detail
