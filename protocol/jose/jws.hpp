// JWS compact serialization (RFC 7515 section 7.1) as gate accepts it: three base64url parts,
// a JSON object header and payload, an asymmetric algorithm, no critical extensions.
// Parsing looks at no key; verification is a separate step against a key set.
#pragma once

#include "protocol/jose/jwk.hpp"

#include <boost/json/object.hpp>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace gate::protocol::jose {

// The largest token accepted: far above any real access token, far below the body cap.
inline constexpr std::size_t max_token_bytes = 16 * 1024;

struct compact_jws {
    boost::json::object header;
    boost::json::object payload;
    algorithm alg = algorithm::rs256;
    std::string kid;           // empty when the header names none
    std::string signing_input; // header.payload, as signed
    std::string signature;     // decoded
};

// The token's parts, or why gate refuses it before looking for a key.
std::variant<compact_jws, std::string> parse_compact(std::string_view token);

enum class signature_check : std::uint8_t {
    verified,
    bad_signature, // a key that fits was found and the signature does not verify with it
    no_key,        // no key of the set fits: unknown kid, or none for the algorithm
};

// Checks the signature against `keys`: the key the header's kid names (and fits the
// algorithm), or without a kid every key that fits.
signature_check verify_signature(const compact_jws& jws, std::span<const public_key> keys);

} // namespace gate::protocol::jose
