// The specification's rule for tool names (2025-11-25): 1 to 128 characters, each a letter,
// a digit, `_`, `-` or `.`. Clients and model APIs refuse others, and many cap names at 64, so
// a namespace that leaves little room is worth a warning before a name is cut off anywhere.
#pragma once

#include <cstddef>
#include <string_view>

namespace gate::protocol {

inline constexpr std::size_t max_tool_name = 128;
// What clients and model APIs commonly accept, and the room a namespace should leave under it
// for a name of common length.
inline constexpr std::size_t common_tool_name = 64;
inline constexpr std::size_t common_name_room = 32;

enum class tool_name_fault { none, empty, too_long, charset };
tool_name_fault check_tool_name(std::string_view name);
// Whether every character of `name` is one the rule allows (its length aside).
bool in_tool_name_charset(std::string_view name);
// The metric label / log word of a fault (`too_long`, `charset`, `empty`).
std::string_view fault_label(tool_name_fault f);

} // namespace gate::protocol
