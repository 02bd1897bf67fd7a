#pragma once
#include <string_view>
namespace gate::process {
// The semantic version (0.1.0): in User-Agent and clientInfo, where a bare version is usual.
inline constexpr std::string_view gate_version = GATE_VERSION_STRING;
// The release identifier (spec, Versioning: v<major>.<minor>.<patch>): what --version prints
// and gate_build_info{version} carries.
inline constexpr std::string_view gate_release = "v" GATE_VERSION_STRING;
} // namespace gate::process
