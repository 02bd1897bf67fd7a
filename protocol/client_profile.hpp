// A client's capability profile: the part of what it declared at initialize that decides what
// an upstream lists to it. Servers register some tools only for clients that can sample,
// elicit or answer roots (server-everything lists 13 tools to a client that declares none of
// them and 17 to one that declares all), so gate asks each upstream once per profile and
// keeps one cached list per profile: each client is listed what the upstream would list it
// directly. Other capability details (sampling.tools, roots.listChanged) do not change
// listings and would only split the cache.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>

namespace gate::protocol {

using client_profile = std::uint8_t;

namespace profile_bit {
inline constexpr client_profile sampling = 1;
inline constexpr client_profile elicitation_form = 2;
inline constexpr client_profile elicitation_url = 4;
inline constexpr client_profile roots = 8;
} // namespace profile_bit

// Everything gate can bridge: gate's own lists (warm-up, resource ownership) use it.
inline constexpr client_profile full_profile = 15;
inline constexpr std::size_t profile_count = 16;

client_profile profile_of(const boost::json::object& capabilities);
// The capabilities a session of this profile declares.
boost::json::object capabilities_of(client_profile p);

} // namespace gate::protocol
