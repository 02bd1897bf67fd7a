#include "protocol/secret_compare.hpp"

#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace gate::protocol {

bool secrets_equal(std::string_view presented, std::string_view expected) {
    // Digests have a fixed length, so the comparison cannot stop early on a length mismatch.
    unsigned char a[SHA256_DIGEST_LENGTH], b[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(presented.data()), presented.size(), a);
    SHA256(reinterpret_cast<const unsigned char*>(expected.data()), expected.size(), b);
    return CRYPTO_memcmp(a, b, sizeof a) == 0;
}

} // namespace gate::protocol
