// Server-side request forgery: which resolved addresses a delivery may not connect to unless
// the operator allows private targets. Checked on the address actually dialled, at delivery
// time (a name may resolve elsewhere later than at creation). Plain C++ over address bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace gate::hooks {

// `address`: 4 bytes (IPv4) or 16 bytes (IPv6), network order. True for loopback, private
// (RFC 1918, unique local), link-local, carrier-grade NAT, unspecified, multicast, broadcast,
// documentation and benchmarking ranges, and IPv4 addresses mapped or embedded in IPv6 that
// are any of those.
bool is_non_public(std::span<const std::uint8_t> address);

// A URL host that is an IP literal ("127.0.0.1", "[::1]" or "::1") and non-public: refused
// already when the webhook is created. Names are judged when they are resolved, at delivery.
bool is_non_public_literal(std::string_view host);

} // namespace gate::hooks
