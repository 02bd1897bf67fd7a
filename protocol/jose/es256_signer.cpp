#include "protocol/jose/es256_signer.hpp"

#include "protocol/jose/base64url.hpp"

#include <boost/json/serialize.hpp>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

namespace gate::protocol::jose {

namespace json = boost::json;

std::variant<es256_signer, std::string> es256_signer::from_pem(std::string_view pem) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(
        BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
    EVP_PKEY* raw = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr;
    if (!raw)
        return std::string("not a PEM private key (PKCS#8, -----BEGIN PRIVATE KEY-----)");
    es256_signer s;
    s.key_.reset(raw, EVP_PKEY_free);
    char group[64] = {};
    std::size_t len = 0;
    if (EVP_PKEY_get_base_id(raw) != EVP_PKEY_EC ||
        EVP_PKEY_get_utf8_string_param(raw, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                       &len) != 1 ||
        std::string_view(group) != "prime256v1")
        return std::string("not an EC key on P-256, which ES256 needs");
    unsigned char point[65];
    if (EVP_PKEY_get_octet_string_param(raw, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point, &len) !=
            1 ||
        len != 65)
        return std::string("the key's public point cannot be read");
    std::string_view xy(reinterpret_cast<char*>(point) + 1, 64);
    auto x = base64url_encode(xy.substr(0, 32)), y = base64url_encode(xy.substr(32));
    // RFC 7638: the required members in lexicographic order, no spaces.
    auto canonical = R"({"crv":"P-256","kty":"EC","x":")" + x + R"(","y":")" + y + R"("})";
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(canonical.data()), canonical.size(), digest);
    s.kid_ = base64url_encode(std::string_view(reinterpret_cast<char*>(digest), sizeof digest));
    s.jwk_ = json::object{{"kty", "EC"},   {"crv", "P-256"}, {"x", x},        {"y", y},
                          {"kid", s.kid_}, {"use", "sig"},   {"alg", "ES256"}};
    return s;
}

std::string es256_signer::sign(json::object header, const json::object& payload) const {
    header["alg"] = "ES256";
    header["kid"] = kid_;
    auto input = base64url_encode(json::serialize(header)) + "." +
                 base64url_encode(json::serialize(payload));
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    std::size_t len = 0;
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_.get()) != 1 ||
        EVP_DigestSign(ctx.get(), nullptr, &len,
                       reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1)
        return {};
    std::string der(len, '\0');
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(der.data()), &len,
                       reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1)
        return {};
    // DER to the r||s JWS carries (RFC 7518 section 3.4).
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> sig(
        d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(len)), ECDSA_SIG_free);
    if (!sig)
        return {};
    std::string raw(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), reinterpret_cast<unsigned char*>(raw.data()) + 32,
                 32);
    return input + "." + base64url_encode(raw);
}

} // namespace gate::protocol::jose
