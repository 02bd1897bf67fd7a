// How a namespaced federation presents itself (server.info, server.instructions;
// docs/configuration.md): initialize's serverInfo and instructions, which server/discover
// answers too. Plain C++ over the configuration and what each upstream's handshake said.
#pragma once

#include "config/model.hpp"

#include <boost/json/object.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gate::gateway {

// One upstream's own instructions, as its last handshake gave them.
struct upstream_instructions {
    std::string_view id;
    std::string prefix; // its names' prefix: namespace and separator
    std::string_view text;
};

inline constexpr std::size_t upstream_instructions_cut = 2048; // bytes of each upstream's
inline constexpr std::size_t instructions_bound = 16384;       // bytes of the whole

// serverInfo: the configured name, title, version, website and icons; "gate" at
// `gate_version` for what is not configured.
boost::json::object federation_server_info(const config::federation_info& info,
                                           std::string_view gate_version);

// The instructions: the configured text, then (fromUpstreams) each upstream's own under a line
// naming it and its prefix, each cut at upstream_instructions_cut bytes (at a character's
// boundary, control characters other than line breaks and tabs dropped), the whole within
// instructions_bound (the upstreams that do not fit are counted in a last line). nullopt: none.
std::optional<std::string> federation_instructions(const config::federation_instructions& cfg,
                                                   const std::vector<upstream_instructions>& ups);

} // namespace gate::gateway
