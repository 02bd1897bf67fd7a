#include "protocol/cursor_codec.hpp"

#include <cstring>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <stdexcept>

namespace gate::protocol {

namespace {

constexpr std::size_t payload_size = 1 + 8 + 4 + 8;
constexpr std::size_t mac_size = 12;
constexpr std::string_view alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

template <class T> void put(unsigned char*& p, T v) {
    for (std::size_t i = 0; i < sizeof(T); ++i)
        *p++ = static_cast<unsigned char>(v >> (8 * i));
}
template <class T> T get(const unsigned char*& p) {
    T v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
        v |= static_cast<T>(*p++) << (8 * i);
    return v;
}

std::string base64url(const unsigned char* data, std::size_t n) {
    std::string out;
    std::uint32_t acc = 0;
    int bits = 0;
    for (std::size_t i = 0; i < n; ++i) {
        acc = (acc << 8) | data[i];
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out.push_back(alphabet[(acc >> bits) & 63]);
        }
    }
    if (bits > 0)
        out.push_back(alphabet[(acc << (6 - bits)) & 63]);
    return out;
}

bool unbase64url(std::string_view text, unsigned char* out, std::size_t n) {
    if (text.size() != (n * 8 + 5) / 6)
        return false;
    std::uint32_t acc = 0;
    int bits = 0;
    std::size_t k = 0;
    for (char c : text) {
        auto pos = alphabet.find(c);
        if (pos == std::string_view::npos)
            return false;
        acc = (acc << 6) | static_cast<std::uint32_t>(pos);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (k < n)
                out[k++] = static_cast<unsigned char>(acc >> bits);
        }
    }
    return k == n;
}

void seal(const cursor_codec::key_type& key, const unsigned char* payload, unsigned char* mac) {
    unsigned char full[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), payload, payload_size, full, &len);
    std::memcpy(mac, full, mac_size);
}

} // namespace

cursor_codec cursor_codec::with_random_key() {
    key_type key{};
    if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1)
        throw std::runtime_error("no randomness for the cursor key");
    return cursor_codec(key);
}

std::string cursor_codec::encode(const cursor& c) const {
    unsigned char buf[payload_size + mac_size];
    unsigned char* p = buf;
    put(p, static_cast<std::uint8_t>(c.kind));
    put(p, c.fingerprint);
    put(p, c.offset);
    put(p, c.principal);
    seal(key_, buf, buf + payload_size);
    return base64url(buf, sizeof buf);
}

std::optional<cursor> cursor_codec::decode(std::string_view text) const {
    unsigned char buf[payload_size + mac_size];
    if (!unbase64url(text, buf, sizeof buf))
        return std::nullopt;
    unsigned char mac[mac_size];
    seal(key_, buf, mac);
    if (CRYPTO_memcmp(mac, buf + payload_size, mac_size) != 0)
        return std::nullopt;
    const unsigned char* p = buf;
    auto kind = get<std::uint8_t>(p);
    if (kind > static_cast<std::uint8_t>(list_kind::tasks))
        return std::nullopt;
    cursor c{static_cast<list_kind>(kind), 0, 0, 0};
    c.fingerprint = get<std::uint64_t>(p);
    c.offset = get<std::uint32_t>(p);
    c.principal = get<std::uint64_t>(p);
    return c;
}

std::uint64_t principal_hash(std::string_view issuer, std::string_view subject) {
    std::uint64_t h = 1469598103934665603ull; // FNV-1a
    auto mix = [&](std::string_view s) {
        for (unsigned char ch : s) {
            h ^= ch;
            h *= 1099511628211ull;
        }
        h ^= 0xff;
        h *= 1099511628211ull;
    };
    mix(issuer);
    mix(subject);
    return h;
}

} // namespace gate::protocol
