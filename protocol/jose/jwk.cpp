#include "protocol/jose/jwk.hpp"

#include "protocol/jose/base64url.hpp"

#include <algorithm>
#include <array>
#include <boost/json/parse.hpp>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <unordered_map>

namespace gate::protocol::jose {

namespace json = boost::json;

namespace {

constexpr std::array<std::string_view, 9> algorithm_names = {
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA"};

template <class T, void (*Free)(T*)> struct deleter {
    void operator()(T* p) const { Free(p); }
};
using bignum = std::unique_ptr<BIGNUM, deleter<BIGNUM, BN_free>>;
using param_builder = std::unique_ptr<OSSL_PARAM_BLD, deleter<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using params = std::unique_ptr<OSSL_PARAM, deleter<OSSL_PARAM, OSSL_PARAM_free>>;
using pkey_ctx = std::unique_ptr<EVP_PKEY_CTX, deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using md_ctx = std::unique_ptr<EVP_MD_CTX, deleter<EVP_MD_CTX, EVP_MD_CTX_free>>;
using ecdsa_sig = std::unique_ptr<ECDSA_SIG, deleter<ECDSA_SIG, ECDSA_SIG_free>>;

std::shared_ptr<EVP_PKEY> own(EVP_PKEY* k) {
    return {k, EVP_PKEY_free};
}

// A base64url member decoded to bytes, or nullopt when absent or not base64url.
std::optional<std::string> bytes_of(const json::object& jwk, std::string_view member) {
    const auto* v = jwk.if_contains(member);
    if (!v || !v->is_string())
        return std::nullopt;
    return base64url_decode(v->get_string());
}

std::shared_ptr<EVP_PKEY> from_params(const char* type, OSSL_PARAM_BLD* bld) {
    params p(OSSL_PARAM_BLD_to_param(bld));
    pkey_ctx ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
    EVP_PKEY* key = nullptr;
    if (!p || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
        EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, p.get()) != 1)
        return nullptr;
    return own(key);
}

std::variant<std::shared_ptr<EVP_PKEY>, std::string> rsa_key(const json::object& jwk) {
    auto n = bytes_of(jwk, "n"), e = bytes_of(jwk, "e");
    if (!n || !e || n->empty() || e->empty())
        return std::string("an RSA key needs base64url members n and e");
    bignum bn_n(BN_bin2bn(reinterpret_cast<const unsigned char*>(n->data()),
                          static_cast<int>(n->size()), nullptr));
    bignum bn_e(BN_bin2bn(reinterpret_cast<const unsigned char*>(e->data()),
                          static_cast<int>(e->size()), nullptr));
    param_builder bld(OSSL_PARAM_BLD_new());
    if (!bn_n || !bn_e || !bld)
        return std::string("out of memory");
    if (BN_num_bits(bn_n.get()) < min_rsa_bits)
        return "an RSA modulus of " + std::to_string(BN_num_bits(bn_n.get())) +
               " bits is too short (at least " + std::to_string(min_rsa_bits) + ")";
    OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get());
    OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get());
    if (auto key = from_params("RSA", bld.get()))
        return key;
    return std::string("not a valid RSA public key");
}

std::variant<std::shared_ptr<EVP_PKEY>, std::string> ec_key(const json::object& jwk,
                                                            const char* group, std::size_t size) {
    auto x = bytes_of(jwk, "x"), y = bytes_of(jwk, "y");
    // RFC 7518 section 6.2.1.2: the coordinates have the full length of the curve's field.
    if (!x || !y || x->size() != size || y->size() != size)
        return "an EC key on this curve needs base64url members x and y of " +
               std::to_string(size) + " bytes";
    std::string point = "\x04" + *x + *y;
    param_builder bld(OSSL_PARAM_BLD_new());
    if (!bld)
        return std::string("out of memory");
    OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group, 0);
    OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                     point.size());
    if (auto key = from_params("EC", bld.get()))
        return key;
    return std::string("not a point on the curve");
}

const EVP_MD* digest_of(algorithm a) {
    switch (a) {
    case algorithm::rs256:
    case algorithm::ps256:
    case algorithm::es256:
        return EVP_sha256();
    case algorithm::rs384:
    case algorithm::ps384:
    case algorithm::es384:
        return EVP_sha384();
    case algorithm::rs512:
    case algorithm::ps512:
        return EVP_sha512();
    case algorithm::eddsa:
        return nullptr;
    }
    return nullptr;
}

// JWS carries an ECDSA signature as r||s, each the size of the curve; OpenSSL verifies DER.
std::optional<std::string> ecdsa_der(std::string_view raw, std::size_t size) {
    if (raw.size() != 2 * size)
        return std::nullopt;
    const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
    ecdsa_sig sig(ECDSA_SIG_new());
    BIGNUM* r = BN_bin2bn(bytes, static_cast<int>(size), nullptr);
    BIGNUM* s = BN_bin2bn(bytes + size, static_cast<int>(size), nullptr);
    if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
        BN_free(r);
        BN_free(s);
        return std::nullopt;
    }
    unsigned char* der = nullptr;
    int len = i2d_ECDSA_SIG(sig.get(), &der);
    if (len <= 0)
        return std::nullopt;
    std::string out(reinterpret_cast<char*>(der), static_cast<std::size_t>(len));
    OPENSSL_free(der);
    return out;
}

} // namespace

std::optional<algorithm> algorithm_named(std::string_view n) {
    for (std::size_t i = 0; i < algorithm_names.size(); ++i)
        if (algorithm_names[i] == n)
            return static_cast<algorithm>(i);
    return std::nullopt;
}

std::string_view name(algorithm a) {
    return algorithm_names[static_cast<std::size_t>(a)];
}

std::variant<public_key, std::string> public_key::from_jwk(const json::object& jwk) {
    public_key k;
    const auto* kty = jwk.if_contains("kty");
    if (!kty || !kty->is_string())
        return std::string("a key needs a string kty");
    if (const auto* kid = jwk.if_contains("kid")) {
        if (!kid->is_string())
            return std::string("kid must be a string");
        k.kid_ = kid->get_string();
    }
    if (const auto* use = jwk.if_contains("use");
        use && !(use->is_string() && use->get_string() == "sig"))
        return std::string("not a signature key (use is not \"sig\")");
    if (const auto* ops = jwk.if_contains("key_ops")) {
        bool verifies = false;
        if (ops->is_array())
            for (const auto& op : ops->get_array())
                verifies = verifies || (op.is_string() && op.get_string() == "verify");
        if (!verifies)
            return std::string("key_ops does not include \"verify\"");
    }
    if (const auto* alg = jwk.if_contains("alg")) {
        if (!alg->is_string())
            return std::string("alg must be a string");
        k.alg_ = algorithm_named(alg->get_string());
        if (!k.alg_)
            return "algorithm " + std::string(alg->get_string()) + " is not accepted";
    }
    std::variant<std::shared_ptr<EVP_PKEY>, std::string> made;
    std::string_view type = kty->get_string();
    auto crv = [&]() -> std::string_view {
        const auto* c = jwk.if_contains("crv");
        return c && c->is_string() ? std::string_view(c->get_string()) : std::string_view();
    };
    if (type == "RSA") {
        k.family_ = family::rsa;
        made = rsa_key(jwk);
    } else if (type == "EC" && crv() == "P-256") {
        k.family_ = family::p256;
        made = ec_key(jwk, "prime256v1", 32);
    } else if (type == "EC" && crv() == "P-384") {
        k.family_ = family::p384;
        made = ec_key(jwk, "secp384r1", 48);
    } else if (type == "OKP" && crv() == "Ed25519") {
        k.family_ = family::ed25519;
        auto x = bytes_of(jwk, "x");
        if (!x || x->size() != 32)
            return std::string("an Ed25519 key needs a base64url member x of 32 bytes");
        EVP_PKEY* raw = EVP_PKEY_new_raw_public_key(
            EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(x->data()), 32);
        if (raw)
            made = own(raw);
        else
            made = std::string("not a valid Ed25519 public key");
    } else if (type == "oct") {
        return std::string("symmetric keys are never accepted");
    } else {
        return "key type " + std::string(type) +
               (crv().empty() ? "" : " on curve " + std::string(crv())) + " is not supported";
    }
    if (auto* error = std::get_if<std::string>(&made))
        return std::move(*error);
    k.key_ = std::move(std::get<std::shared_ptr<EVP_PKEY>>(made));
    if (k.alg_ && !k.fits(*k.alg_))
        return "the key's alg " + std::string(name(*k.alg_)) + " does not match its type";
    return k;
}

bool public_key::fits(algorithm a) const {
    if (alg_ && *alg_ != a)
        return false;
    switch (a) {
    case algorithm::rs256:
    case algorithm::rs384:
    case algorithm::rs512:
    case algorithm::ps256:
    case algorithm::ps384:
    case algorithm::ps512:
        return family_ == family::rsa;
    case algorithm::es256:
        return family_ == family::p256;
    case algorithm::es384:
        return family_ == family::p384;
    case algorithm::eddsa:
        return family_ == family::ed25519;
    }
    return false;
}

bool public_key::verify(algorithm a, std::string_view input, std::string_view signature) const {
    if (!key_ || !fits(a))
        return false;
    std::string der;
    if (a == algorithm::es256 || a == algorithm::es384) {
        auto converted = ecdsa_der(signature, a == algorithm::es256 ? 32 : 48);
        if (!converted)
            return false;
        der = std::move(*converted);
        signature = der;
    }
    md_ctx ctx(EVP_MD_CTX_new());
    EVP_PKEY_CTX* pctx = nullptr;
    if (!ctx || EVP_DigestVerifyInit(ctx.get(), &pctx, digest_of(a), nullptr, key_.get()) != 1)
        return false;
    if (a == algorithm::ps256 || a == algorithm::ps384 || a == algorithm::ps512) {
        // RFC 7518 section 3.5: MGF1 with the same hash, a salt as long as the hash.
        if (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
            EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) != 1)
            return false;
    } else if (family_ == family::rsa) {
        if (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) != 1)
            return false;
    }
    return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                            signature.size(), reinterpret_cast<const unsigned char*>(input.data()),
                            input.size()) == 1;
}

bool public_key::same_as(const public_key& other) const {
    return kid_ == other.kid_ && alg_ == other.alg_ && family_ == other.family_ && key_ &&
           other.key_ && EVP_PKEY_eq(key_.get(), other.key_.get()) == 1;
}

std::vector<std::string> withdrawn_kids(const key_set& before, const key_set& after) {
    // Indexed by kid: a set of a thousand keys costs a thousand lookups, not a million.
    std::unordered_multimap<std::string_view, const public_key*> kept;
    for (const auto& k : after.keys)
        kept.emplace(k.kid(), &k);
    std::vector<std::string> out;
    for (const auto& k : before.keys) {
        auto [first, last] = kept.equal_range(k.kid());
        bool still = std::any_of(first, last, [&](const auto& e) { return e.second->same_as(k); });
        if (!still && std::find(out.begin(), out.end(), k.kid()) == out.end())
            out.push_back(k.kid());
    }
    return out;
}

std::variant<key_set, std::string> parse_key_set(std::string_view text) {
    boost::system::error_code ec;
    auto doc = json::parse(text, ec);
    if (ec)
        return "the key set is not JSON: " + ec.message();
    const auto* keys = doc.is_object() ? doc.get_object().if_contains("keys") : nullptr;
    if (!keys || !keys->is_array())
        return std::string("the key set is not an object with a \"keys\" array");
    key_set out;
    std::string first_reason;
    for (const auto& k : keys->get_array()) {
        if (!k.is_object()) {
            ++out.skipped;
            continue;
        }
        auto made = public_key::from_jwk(k.get_object());
        if (auto* key = std::get_if<public_key>(&made)) {
            out.keys.push_back(std::move(*key));
        } else {
            ++out.skipped;
            if (first_reason.empty())
                first_reason = std::get<std::string>(made);
        }
    }
    if (out.keys.empty())
        return "the key set has no usable signature key" +
               (first_reason.empty() ? std::string() : " (" + first_reason + ")");
    return out;
}

} // namespace gate::protocol::jose
