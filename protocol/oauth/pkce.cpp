#include "protocol/oauth/pkce.hpp"

#include "protocol/jose/base64url.hpp"

#include <array>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdexcept>

namespace gate::protocol::oauth {

std::string s256_challenge(std::string_view verifier) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(verifier.data(), verifier.size(), md, &len, EVP_sha256(), nullptr);
    return jose::base64url_encode(std::string_view(reinterpret_cast<const char*>(md), len));
}

pkce_pair make_pkce() {
    std::array<unsigned char, 32> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
        throw std::runtime_error("the random generator failed");
    pkce_pair p;
    p.verifier =
        jose::base64url_encode(std::string_view(reinterpret_cast<const char*>(bytes.data()), 32));
    p.challenge = s256_challenge(p.verifier);
    return p;
}

} // namespace gate::protocol::oauth
