#include "hooks/target_guard.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <array>

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
           (a[0] == 192 && a[1] == 88 && a[2] == 99) ||   // 6to4 relay anycast (deprecated)
           (a[0] == 198 && (a[1] == 18 || a[1] == 19)) || // benchmarking
           (a[0] == 198 && a[1] == 51 && a[2] == 100) ||  // documentation
           (a[0] == 203 && a[1] == 0 && a[2] == 113) ||   // documentation
           a[0] >= 224;                                   // multicast, reserved, broadcast
}

bool starts_with(const std::uint8_t* a, std::initializer_list<std::uint8_t> prefix) {
    return std::equal(prefix.begin(), prefix.end(), a);
}

} // namespace

bool is_non_public(std::span<const std::uint8_t> address) {
    if (address.size() == 4)
        return v4_non_public(address.data());
    if (address.size() != 16)
        return true; // not an address we know how to judge: refuse
    const auto* a = address.data();
    // Two forms reach an IPv4 host the way a public receiver may genuinely be reached (a
    // dual-stack socket, DNS64 on an IPv6-only host): judged by the IPv4 address they carry.
    if (starts_with(a, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}))
        return v4_non_public(a + 12); // IPv4-mapped ::ffff:0:0/96
    if (starts_with(a, {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}))
        return v4_non_public(a + 12); // NAT64 well-known prefix 64:ff9b::/96
    // Outside global unicast 2000::/3 nothing is public: ::/8 (unspecified, loopback,
    // IPv4-compatible ::/96, IPv4-translated ::ffff:0:0:0/96, and NAT64 beyond the /96 above,
    // local-use 64:ff9b:1::/48 among it, whose translator is the operator's own), discard
    // 100::/64, unique local fc00::/7, link-local fe80::/10, site-local fec0::/10, multicast.
    if ((a[0] & 0xe0) != 0x20)
        return true;
    // Within it: 2001::/23 (IETF protocol assignments: Teredo 2001::/32, a tunnel to the
    // IPv4 address it carries; benchmarking; ORCHID), 6to4 2002::/16 (a tunnel to the IPv4
    // address it carries, deprecated), documentation 2001:db8::/32 and 3fff::/20.
    bool ietf = a[0] == 0x20 && a[1] == 0x01 && a[2] < 0x02;
    bool six_to_four = a[0] == 0x20 && a[1] == 0x02;
    bool documentation = (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8) ||
                         (a[0] == 0x3f && a[1] == 0xff && a[2] < 0x10);
    return ietf || six_to_four || documentation;
}

std::optional<std::string> non_public_literal(std::string_view host) {
    std::string h(host);
    if (h.size() > 2 && h.front() == '[' && h.back() == ']')
        h = h.substr(1, h.size() - 2);
    std::array<char, INET6_ADDRSTRLEN> text{};
    std::array<std::uint8_t, 16> v6{};
    if (inet_pton(AF_INET6, h.c_str(), v6.data()) == 1) {
        if (!is_non_public(v6))
            return std::nullopt;
        return inet_ntop(AF_INET6, v6.data(), text.data(), text.size());
    }
    // inet_aton, not inet_pton: it reads the shortened, decimal, octal and hex spellings the
    // resolver reads too, so "2130706433" is 127.0.0.1 here as it is when dialled.
    in_addr v4{};
    if (inet_aton(h.c_str(), &v4) == 0)
        return std::nullopt;
    std::array<std::uint8_t, 4> bytes{};
    std::copy_n(reinterpret_cast<const std::uint8_t*>(&v4.s_addr), 4, bytes.begin());
    if (!is_non_public(bytes))
        return std::nullopt;
    return inet_ntop(AF_INET, &v4, text.data(), text.size());
}

} // namespace gate::hooks
