// What gate-hooks keeps of text a receiver sent (its response body, its reason phrase): at
// most a given number of bytes of valid UTF-8. A receiver's bytes are arbitrary; the stores
// (PostgreSQL text refuses invalid UTF-8 and NUL) and the API's JSON need text, and a prefix
// cut at a byte count can split a character.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace gate::hooks {

// `bytes` with every NUL and every byte that does not begin a well-formed UTF-8 sequence
// replaced by U+FFFD, cut at a character boundary to at most `max_bytes` bytes.
std::string kept_text(std::string_view bytes, std::size_t max_bytes);

} // namespace gate::hooks
