// SHA-256 in lower-case hex, cut to as many digits as a name needs: icon paths
// (protocol/icons.hpp) and the short aliases of long tool names (protocol/name_codec.hpp) are
// derived from what they stand for, so every instance of a fleet writes the same one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gate::protocol {

// The first `digits` hex digits (at most 64) of SHA-256 of `text`.
std::string sha256_hex(std::string_view text, std::size_t digits);

} // namespace gate::protocol
