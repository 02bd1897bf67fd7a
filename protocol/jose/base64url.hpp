// base64url without padding (RFC 7515 section 2, RFC 4648 section 5), the encoding of every
// JOSE part. Decoding is strict: a padding character, a character outside the alphabet, a
// length no encoder produces (4k+1) or non-zero trailing bits is refused, so one token has
// one spelling.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gate::protocol::jose {

std::string base64url_encode(std::string_view bytes);
std::optional<std::string> base64url_decode(std::string_view text);

} // namespace gate::protocol::jose
