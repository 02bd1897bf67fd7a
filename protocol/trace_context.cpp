#include "protocol/trace_context.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <openssl/rand.h>

namespace gate::protocol {

namespace {

bool lower_hex(std::string_view s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool all_zero(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c == '0'; });
}

// Trace and span ids need uniqueness, not secrecy: a per-thread generator seeded once from
// the system's randomness keeps RAND_bytes off the request path.
std::uint64_t next_random() {
    thread_local std::uint64_t state = [] {
        std::uint64_t seed = 0;
        RAND_bytes(reinterpret_cast<unsigned char*>(&seed), sizeof seed);
        return seed;
    }();
    // splitmix64
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// The 8 lowercase hex digits of `v`, most significant first, at `out`: every nibble spread to a
// byte of its own, then each turned to its digit at once (a request's trace header takes 48
// digits; a table lookup per digit cost more than the rest of the header).
void write_hex8(char* out, std::uint32_t v) {
    std::uint64_t x = v;
    x = (x | (x << 16)) & 0x0000ffff0000ffffull;
    x = (x | (x << 8)) & 0x00ff00ff00ff00ffull;
    x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0full; // byte k holds nibble k
    if constexpr (std::endian::native == std::endian::little)
        x = __builtin_bswap64(x); // most significant nibble first in memory
    std::uint64_t letters = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
    x += 0x3030303030303030ull + letters * ('a' - '0' - 10);
    std::memcpy(out, &x, sizeof x);
}

// `bytes` random bytes as 2 * bytes lowercase hex digits at `out`, not all zero.
void fill_random_hex(char* out, std::size_t bytes) {
    static constexpr char hex[] = "0123456789abcdef";
    std::uint64_t seen = 0;
    do {
        std::size_t i = 0;
        for (; i + 8 <= bytes; i += 8) {
            auto r = next_random();
            seen |= r;
            write_hex8(out + 2 * i, static_cast<std::uint32_t>(r >> 32));
            write_hex8(out + 2 * i + 8, static_cast<std::uint32_t>(r));
        }
        if (i == bytes)
            continue;
        for (auto r = next_random(); i < bytes; ++i, r >>= 8) {
            seen |= r & 0xff;
            out[2 * i] = hex[(r >> 4) & 15];
            out[2 * i + 1] = hex[r & 15];
        }
    } while (seen == 0);
}

} // namespace

std::string random_hex(std::size_t bytes) {
    std::string out(bytes * 2, '0');
    fill_random_hex(out.data(), bytes);
    return out;
}

std::optional<trace_parent> parse_traceparent(std::string_view h) {
    // 00-<32 hex>-<16 hex>-<2 hex>
    if (h.size() != 55 || h[2] != '-' || h[35] != '-' || h[52] != '-' || h.substr(0, 2) != "00")
        return std::nullopt;
    auto trace = h.substr(3, 32), span = h.substr(36, 16), flags = h.substr(53, 2);
    if (!lower_hex(trace) || !lower_hex(span) || !lower_hex(flags) || all_zero(trace) ||
        all_zero(span))
        return std::nullopt;
    return trace_parent{std::string(trace), std::string(span), std::string(flags)};
}

std::string trace_parent::header() const {
    std::string h;
    h.reserve(6 + trace_id.size() + span_id.size() + flags.size());
    h.append("00-").append(trace_id).append(1, '-').append(span_id).append(1, '-').append(flags);
    return h;
}

trace_parent child_of(const std::optional<trace_parent>& caller) {
    if (caller)
        return {caller->trace_id, random_hex(8), caller->flags};
    return {random_hex(16), random_hex(8), "01"};
}

std::string child_header(const std::optional<trace_parent>& caller) {
    // Written in place: every request that is not recorded makes one.
    std::string h = "00-00000000000000000000000000000000-0000000000000000-01";
    if (caller) {
        h.replace(3, 32, caller->trace_id);
        h.replace(53, 2, caller->flags);
    } else {
        fill_random_hex(h.data() + 3, 16);
    }
    fill_random_hex(h.data() + 36, 8);
    return h;
}

trace_parent sampled_child_of(const std::optional<trace_parent>& caller, double ratio) {
    if (caller)
        return child_of(caller);
    auto id = random_hex(16);
    std::uint64_t low = std::stoull(id.substr(18), nullptr, 16); // the last 56 bits
    constexpr double whole = 72057594037927936.0;                // 2^56
    bool in = ratio >= 1.0 || static_cast<double>(low) < ratio * whole;
    return {std::move(id), random_hex(8), in ? "01" : "00"};
}

std::string new_span_id() {
    return random_hex(8);
}

} // namespace gate::protocol
