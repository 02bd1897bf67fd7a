#include "protocol/digest.hpp"

#include <algorithm>
#include <openssl/evp.h>

namespace gate::protocol {

std::string sha256_hex(std::string_view text, std::size_t digits) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(text.data(), text.size(), md, &len, EVP_sha256(), nullptr);
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len && out.size() < digits; ++i) {
        out += hex[md[i] >> 4];
        out += hex[md[i] & 0xf];
    }
    out.resize(std::min(out.size(), digits));
    return out;
}

} // namespace gate::protocol
