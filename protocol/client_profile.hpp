// A client's capability profile: the part of what it declared at initialize that decides what
// an upstream lists to it. Servers register some tools only for clients that can sample,
// elicit or answer roots (server-everything lists 13 tools to a client that declares none of
// them and 17 to one that declares all), so gate asks each upstream once per profile and
// keeps one cached list per profile: each client is listed what the upstream would list it
// directly. Other capability details (sampling.tools, roots.listChanged) do not change
// listings and would only split the cache. Of the extensions a client declares, only those
// gate knows count (the UI extension of MCP Apps: servers show UI tools to hosts that can
// render them), never the client's map as sent, which would split the cache per client.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <memory>
#include <string_view>

namespace gate::protocol {

using client_profile = std::uint8_t;

namespace profile_bit {
inline constexpr client_profile sampling = 1;
inline constexpr client_profile elicitation_form = 2;
inline constexpr client_profile elicitation_url = 4;
inline constexpr client_profile roots = 8;
inline constexpr client_profile ui = 16; // extensions["io.modelcontextprotocol/ui"]
} // namespace profile_bit

// MCP Apps (the UI extension), and the one view type it defines.
inline constexpr std::string_view ui_extension = "io.modelcontextprotocol/ui";
inline constexpr std::string_view ui_mime_type = "text/html;profile=mcp-app";

// Everything gate can bridge: gate's own lists (warm-up, resource ownership) use it.
inline constexpr client_profile full_profile = 31;
inline constexpr std::size_t profile_count = 32;

client_profile profile_of(const boost::json::object& capabilities);
// The capabilities a session of this profile declares.
boost::json::object capabilities_of(client_profile p);
// The same, one read-only copy per profile for the process: every upstream client's root
// session on every io thread declares them (p < profile_count).
const std::shared_ptr<const boost::json::object>& shared_capabilities_of(client_profile p);

} // namespace gate::protocol
