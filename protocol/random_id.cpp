#include "protocol/random_id.hpp"

#include <openssl/rand.h>
#include <stdexcept>

namespace gate::protocol {

std::string random_id() {
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof bytes) != 1)
        throw std::runtime_error("no randomness for a session id");
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (auto b : bytes) {
        out.push_back(hex[b >> 4]);
        out.push_back(hex[b & 15]);
    }
    return out;
}

} // namespace gate::protocol
