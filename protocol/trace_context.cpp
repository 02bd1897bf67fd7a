#include "protocol/trace_context.hpp"

#include <algorithm>
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

std::string random_hex(std::size_t bytes) {
    unsigned char buf[16];
    std::string out;
    do {
        RAND_bytes(buf, static_cast<int>(bytes));
        static constexpr char hex[] = "0123456789abcdef";
        out.clear();
        for (std::size_t i = 0; i < bytes; ++i) {
            out.push_back(hex[buf[i] >> 4]);
            out.push_back(hex[buf[i] & 15]);
        }
    } while (all_zero(out));
    return out;
}

} // namespace

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

trace_parent child_of(const std::optional<trace_parent>& caller) {
    if (caller)
        return {caller->trace_id, random_hex(8), caller->flags};
    return {random_hex(16), random_hex(8), "01"};
}

} // namespace gate::protocol
