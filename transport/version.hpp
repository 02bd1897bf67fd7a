#pragma once
#include <string_view>
namespace gate {
inline constexpr std::string_view gate_version = GATE_VERSION_STRING;
}
