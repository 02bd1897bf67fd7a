// Token parsing and checking on arbitrary text: never crashes, never verifies a signature with
// no key, and whatever parses has an accepted algorithm.
#include "protocol/jose/access_token.hpp"
#include "protocol/jose/jws.hpp"

#include <cstdint>
#include <cstdlib>

namespace jose = gate::protocol::jose;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto parsed = jose::parse_compact(text);
    auto* jws = std::get_if<jose::compact_jws>(&parsed);
    if (!jws)
        return 0;
    if (!jose::algorithm_named(jose::name(jws->alg)))
        std::abort();
    if (jose::verify_signature(*jws, {}) != jose::signature_check::no_key)
        std::abort();
    (void)jose::claimed_issuer(*jws);
    (void)jose::check_claims(*jws, {"https://idp.example", "https://gw.example/mcp", "groups"},
                             1'800'000'000);
    return 0;
}
