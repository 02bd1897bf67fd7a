#include "protocol/trace_context.hpp"

#include <algorithm>
#include <cstdint>
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

// `bytes` random bytes as 2 * bytes lowercase hex digits at `out`, not all zero.
void fill_random_hex(char* out, std::size_t bytes) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string_view written(out, bytes * 2);
    do {
        for (std::size_t i = 0; i < bytes; i += 8) {
            auto r = next_random();
            for (std::size_t k = 0; k < 8 && i + k < bytes; ++k, r >>= 8) {
                out[2 * (i + k)] = hex[(r >> 4) & 15];
                out[2 * (i + k) + 1] = hex[r & 15];
            }
        }
    } while (all_zero(written));
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
