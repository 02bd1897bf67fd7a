#include "hooks/signature.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace gate::hooks {

std::string hmac_sha256_hex(std::string_view secret, std::string_view body) {
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
         reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &len);
    static constexpr char digits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(len * 2);
    for (unsigned int i = 0; i < len; ++i) {
        hex.push_back(digits[mac[i] >> 4]);
        hex.push_back(digits[mac[i] & 0xf]);
    }
    return hex;
}

} // namespace gate::hooks
