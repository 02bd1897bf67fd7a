// The gateway's own signing key for the access tokens it mints (auth.ema): ES256 on P-256,
// loaded from a PKCS#8 PEM, published as a JWK whose kid is its RFC 7638 thumbprint.
#pragma once

#include <boost/json/object.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

typedef struct evp_pkey_st EVP_PKEY;

namespace gate::protocol::jose {

class es256_signer {
public:
    // The key in `pem`, or why it is not an ES256 private key (never quoting the PEM).
    static std::variant<es256_signer, std::string> from_pem(std::string_view pem);

    const std::string& kid() const { return kid_; }
    // The public key as a JWK (kty, crv, x, y, kid, use, alg).
    const boost::json::object& public_jwk() const { return jwk_; }
    // A compact JWS of `payload` with `header` (alg and kid are set here).
    std::string sign(boost::json::object header, const boost::json::object& payload) const;

private:
    std::shared_ptr<EVP_PKEY> key_;
    std::string kid_;
    boost::json::object jwk_;
};

} // namespace gate::protocol::jose
