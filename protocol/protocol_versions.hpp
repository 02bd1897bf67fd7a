// MCP protocol revisions the downstream endpoint speaks, newest first.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace gate::protocol {

inline constexpr std::array<std::string_view, 3> downstream_protocol_versions = {
    "2025-11-25", "2025-06-18", "2025-03-26"};

inline bool supported_protocol_version(std::string_view v) {
    for (auto s : downstream_protocol_versions)
        if (s == v)
            return true;
    return false;
}

// The client's revision when we speak it, else our newest (the client then decides).
inline std::string negotiate_protocol_version(std::string_view requested) {
    return std::string(supported_protocol_version(requested) ? requested
                                                             : downstream_protocol_versions[0]);
}

} // namespace gate::protocol
