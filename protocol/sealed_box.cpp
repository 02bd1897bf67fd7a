#include "protocol/sealed_box.hpp"

#include "protocol/digest.hpp"
#include "protocol/jose/base64url.hpp"

#include <memory>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdexcept>

namespace gate::protocol {

namespace {

constexpr std::size_t nonce_size = 12, tag_size = 16;

using cipher_ctx = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

const unsigned char* bytes_of(std::string_view s) {
    return reinterpret_cast<const unsigned char*>(s.data());
}

std::optional<std::string> decoded_key(std::string_view text) {
    if (text.size() == 64 &&
        text.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos) {
        std::string out;
        for (std::size_t i = 0; i < 64; i += 2)
            out += static_cast<char>(std::stoi(std::string(text.substr(i, 2)), nullptr, 16));
        return out;
    }
    std::string url(text);
    for (auto& c : url)
        c = c == '+' ? '-' : c == '/' ? '_' : c;
    while (!url.empty() && url.back() == '=')
        url.pop_back();
    return jose::base64url_decode(url);
}

} // namespace

std::variant<sealing_key, std::string> read_sealing_key(std::string_view text) {
    auto bytes = decoded_key(text);
    if (!bytes || bytes->size() != 32)
        return std::string("is not a 256-bit key (32 bytes as base64, or 64 hex digits; make one "
                           "with `openssl rand -base64 32`)");
    sealing_key k;
    std::copy(bytes->begin(), bytes->end(), k.bytes.begin());
    k.id = sha256_hex(*bytes, 8);
    return k;
}

std::string seal(std::string_view plain, const sealing_key& key, std::string_view associated) {
    std::string out(nonce_size + plain.size() + tag_size, '\0');
    auto* bytes = reinterpret_cast<unsigned char*>(out.data());
    if (RAND_bytes(bytes, nonce_size) != 1)
        throw std::runtime_error("the random generator failed");
    cipher_ctx ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    int len = 0;
    bool ok =
        ctx &&
        EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.bytes.data(), bytes) == 1 &&
        EVP_EncryptUpdate(ctx.get(), nullptr, &len, bytes_of(associated),
                          static_cast<int>(associated.size())) == 1 &&
        EVP_EncryptUpdate(ctx.get(), bytes + nonce_size, &len, bytes_of(plain),
                          static_cast<int>(plain.size())) == 1 &&
        EVP_EncryptFinal_ex(ctx.get(), bytes + nonce_size + len, &len) == 1 &&
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, tag_size,
                            bytes + nonce_size + plain.size()) == 1;
    if (!ok)
        throw std::runtime_error("sealing a record failed");
    return "v1." + key.id + "." + jose::base64url_encode(out);
}

std::optional<std::string> open_sealed(std::string_view record,
                                       const std::vector<sealing_key>& keys,
                                       std::string_view associated) {
    if (record.size() < 13 || !record.starts_with("v1.") || record[11] != '.')
        return std::nullopt;
    auto id = record.substr(3, 8);
    const sealing_key* key = nullptr;
    for (const auto& k : keys)
        if (k.id == id)
            key = &k;
    auto sealed = jose::base64url_decode(record.substr(12));
    if (!key || !sealed || sealed->size() < nonce_size + tag_size)
        return std::nullopt;
    auto* bytes = reinterpret_cast<unsigned char*>(sealed->data());
    auto text_size = sealed->size() - nonce_size - tag_size;
    std::string plain(text_size, '\0');
    auto* out = reinterpret_cast<unsigned char*>(plain.data());
    cipher_ctx ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    int len = 0;
    bool ok =
        ctx &&
        EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key->bytes.data(), bytes) == 1 &&
        EVP_DecryptUpdate(ctx.get(), nullptr, &len, bytes_of(associated),
                          static_cast<int>(associated.size())) == 1 &&
        EVP_DecryptUpdate(ctx.get(), out, &len, bytes + nonce_size, static_cast<int>(text_size)) ==
            1 &&
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, tag_size,
                            bytes + nonce_size + text_size) == 1 &&
        EVP_DecryptFinal_ex(ctx.get(), out + len, &len) == 1;
    if (!ok)
        return std::nullopt;
    return plain;
}

} // namespace gate::protocol
