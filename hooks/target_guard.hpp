// Server-side request forgery: which resolved addresses a delivery may not connect to unless
// the operator allows private targets. Checked on the address actually dialled, at delivery
// time (a name may resolve elsewhere later than at creation). Plain C++ over address bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gate::hooks {

// `address`: 4 bytes (IPv4) or 16 bytes (IPv6), network order. True for loopback, private
// (RFC 1918, unique local), link-local, carrier-grade NAT, unspecified, multicast, broadcast,
// documentation and benchmarking ranges; for IPv6 outside global unicast (2000::/3), which
// takes in the IPv4-compatible and IPv4-translated forms and local-use NAT64; for the IPv6
// forms that tunnel to an IPv4 address (Teredo, 6to4); and for IPv4-mapped and NAT64
// well-known-prefix addresses whose IPv4 address is any of those (docs/webhooks.md).
bool is_non_public(std::span<const std::uint8_t> address);

// A URL host (decoded) that the resolver reads as an address literal and that is non-public:
// the address in its usual spelling, refused already when the webhook is created. Every IPv4
// spelling getaddrinfo accepts counts ("127.0.0.1", "127.1", "2130706433", "0x7f.1",
// "0177.0.0.1", "0"), as does IPv6 with or without brackets. Names are judged when they are
// resolved, at delivery: nullopt for them and for public literals.
std::optional<std::string> non_public_literal(std::string_view host);

} // namespace gate::hooks
