#include "hooks/target_guard.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <array>
#include <string>

namespace gate::hooks {

namespace {

bool v4_non_public(const std::uint8_t* a) {
    auto in = [&](std::uint8_t first, std::uint8_t second_lo, std::uint8_t second_hi) {
        return a[0] == first && a[1] >= second_lo && a[1] <= second_hi;
    };
    return a[0] == 0 ||                                   // this network
           a[0] == 10 ||                                  // RFC 1918
           a[0] == 127 ||                                 // loopback
           in(100, 64, 127) ||                            // carrier-grade NAT
           in(169, 254, 254) ||                           // link-local (cloud metadata)
           in(172, 16, 31) ||                             // RFC 1918
           (a[0] == 192 && a[1] == 168) ||                // RFC 1918
           (a[0] == 192 && a[1] == 0 && a[2] == 0) ||     // IETF protocol assignments
           (a[0] == 192 && a[1] == 0 && a[2] == 2) ||     // documentation
           (a[0] == 198 && (a[1] == 18 || a[1] == 19)) || // benchmarking
           (a[0] == 198 && a[1] == 51 && a[2] == 100) ||  // documentation
           (a[0] == 203 && a[1] == 0 && a[2] == 113) ||   // documentation
           a[0] >= 224;                                   // multicast, reserved, broadcast
}

} // namespace

bool is_non_public(std::span<const std::uint8_t> address) {
    if (address.size() == 4)
        return v4_non_public(address.data());
    if (address.size() != 16)
        return true; // not an address we know how to judge: refuse
    const auto* a = address.data();
    auto zero_until = [&](std::size_t n) {
        return std::all_of(a, a + n, [](auto b) { return b == 0; });
    };
    if (zero_until(15) && (a[15] == 0 || a[15] == 1))
        return true; // :: and ::1
    if (zero_until(10) && a[10] == 0xff && a[11] == 0xff)
        return v4_non_public(a + 12); // IPv4-mapped
    if (zero_until(12))
        return v4_non_public(a + 12); // IPv4-compatible (deprecated)
    if (a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b)
        return v4_non_public(a + 12); // NAT64 well-known prefix
    if (a[0] == 0x20 && a[1] == 0x02)
        return v4_non_public(a + 2);                  // 6to4 embeds an IPv4 address
    return (a[0] & 0xfe) == 0xfc ||                   // unique local fc00::/7
           (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) || // link-local fe80::/10
           (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0) || // site-local (deprecated)
           a[0] == 0xff ||                            // multicast
           (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8); // documentation
}

bool is_non_public_literal(std::string_view host) {
    std::string h(host);
    if (h.size() > 2 && h.front() == '[' && h.back() == ']')
        h = h.substr(1, h.size() - 2);
    std::array<std::uint8_t, 4> v4{};
    if (inet_pton(AF_INET, h.c_str(), v4.data()) == 1)
        return is_non_public(v4);
    std::array<std::uint8_t, 16> v6{};
    if (inet_pton(AF_INET6, h.c_str(), v6.data()) == 1)
        return is_non_public(v6);
    return false;
}

} // namespace gate::hooks
