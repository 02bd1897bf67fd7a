// Public verification keys from JSON Web Keys (RFC 7517, 7518 section 6, RFC 8037): RSA,
// EC P-256 and P-384, and Ed25519. Only the asymmetric algorithms the spec admits exist here;
// `none` and the HMAC family have no value, so no key can ever verify them.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

typedef struct evp_pkey_st EVP_PKEY;

namespace gate::protocol::jose {

enum class algorithm : std::uint8_t {
    rs256,
    rs384,
    rs512,
    ps256,
    ps384,
    ps512,
    es256,
    es384,
    eddsa
};

// The algorithm a JOSE header names; nullopt for everything gate refuses (none, HS*, ES512,
// unknown names).
std::optional<algorithm> algorithm_named(std::string_view name);
std::string_view name(algorithm a);

// The smallest RSA modulus accepted (RFC 7518 section 3.3: 2048 bits or larger).
inline constexpr int min_rsa_bits = 2048;

class public_key {
public:
    // The key a JWK describes, or why it cannot be used to verify signatures.
    static std::variant<public_key, std::string> from_jwk(const boost::json::object& jwk);

    const std::string& kid() const { return kid_; }
    // Whether this key may verify a signature made with `a`: its type and curve match the
    // algorithm, and its own `alg`, when it names one, is `a`.
    bool fits(algorithm a) const;
    // Whether `signature` (as JWS carries it: raw r||s for ECDSA) signs `input` with `a`.
    bool verify(algorithm a, std::string_view input, std::string_view signature) const;
    // Whether `other` is this key: the same kid, algorithm restriction and public key.
    bool same_as(const public_key& other) const;

private:
    enum class family : std::uint8_t { rsa, p256, p384, ed25519 };
    std::shared_ptr<EVP_PKEY> key_;
    family family_ = family::rsa;
    std::string kid_;
    std::optional<algorithm> alg_;
};

// A key set (RFC 7517 section 5). Keys gate cannot use for verification (encryption keys,
// symmetric keys, unknown types or curves, short RSA moduli) are skipped and counted, as
// providers publish such keys next to their signing keys; a set with no usable key at all,
// or that is not `{"keys": [...]}`, is refused.
struct key_set {
    std::vector<public_key> keys;
    std::size_t skipped = 0;
};
std::variant<key_set, std::string> parse_key_set(std::string_view text);

// The kids of the keys of `before` that `after` no longer has (no key under that kid, or another
// key under it), each once, "" for a key without a kid: what a refetch withdrew, so the tokens
// those keys verified can be forgotten (gateway/auth/verified_tokens).
std::vector<std::string> withdrawn_kids(const key_set& before, const key_set& after);

} // namespace gate::protocol::jose
