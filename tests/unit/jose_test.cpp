// The JOSE module against the published vectors (RFC 7515 A.2 and A.3, RFC 7517 A.1, RFC 8037
// A.4), keys made here with OpenSSL for the algorithms the RFCs give no vector for, and every
// refusal.
#include "protocol/jose/access_token.hpp"
#include "protocol/jose/base64url.hpp"
#include "protocol/jose/jwk.hpp"
#include "protocol/jose/jws.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

namespace jose = gate::protocol::jose;
namespace json = boost::json;

namespace {

// RFC 7515 appendix A.2 (RS256) and A.3 (ES256): the same payload, published keys.
constexpr std::string_view a2_n =
    "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4"
    "QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMd"
    "bBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK"
    "-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ";
constexpr std::string_view a2_token =
    "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmN"
    "vbS9pc19yb290Ijp0cnVlfQ.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm"
    "4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6"
    "xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqv"
    "hJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw";
constexpr std::string_view a3_x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU";
constexpr std::string_view a3_y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0";
constexpr std::string_view a3_token =
    "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmN"
    "vbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQx"
    "fKTUJqPP3-Kg6NU1Q";
// RFC 8037 appendix A.4 (Ed25519).
constexpr std::string_view a4_x = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
constexpr std::string_view a4_token =
    "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg"
    "3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg";

std::vector<jose::public_key> keys_from(std::string_view set) {
    auto parsed = jose::parse_key_set(set);
    if (auto* e = std::get_if<std::string>(&parsed)) {
        ADD_FAILURE() << *e;
        return {};
    }
    return std::get<jose::key_set>(parsed).keys;
}

std::string rsa_jwk(std::string_view n, std::string_view extra = "") {
    return R"({"kty":"RSA","e":"AQAB","n":")" + std::string(n) + "\"" + std::string(extra) + "}";
}

jose::compact_jws parsed(std::string_view token) {
    auto p = jose::parse_compact(token);
    if (auto* e = std::get_if<std::string>(&p)) {
        ADD_FAILURE() << *e;
        return {};
    }
    return std::get<jose::compact_jws>(std::move(p));
}

std::string refusal(std::string_view token) {
    auto p = jose::parse_compact(token);
    auto* e = std::get_if<std::string>(&p);
    return e ? *e : std::string();
}

std::string b64(std::string_view s) {
    return jose::base64url_encode(s);
}

// A key pair made here, and a signer for it, for algorithms without a published vector.
struct local_key {
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{nullptr, EVP_PKEY_free};
    std::string jwk;

    std::string sign(jose::algorithm a, std::string_view header_json,
                     std::string_view payload_json) const {
        std::string input = b64(header_json) + "." + b64(payload_json);
        const EVP_MD* md = nullptr;
        switch (a) {
        case jose::algorithm::rs384:
        case jose::algorithm::ps384:
        case jose::algorithm::es384:
            md = EVP_sha384();
            break;
        case jose::algorithm::rs512:
        case jose::algorithm::ps512:
            md = EVP_sha512();
            break;
        case jose::algorithm::eddsa:
            break;
        default:
            md = EVP_sha256();
        }
        auto* ctx = EVP_MD_CTX_new();
        EVP_PKEY_CTX* pctx = nullptr;
        EVP_DigestSignInit(ctx, &pctx, md, nullptr, key.get());
        if (a == jose::algorithm::ps256 || a == jose::algorithm::ps384 ||
            a == jose::algorithm::ps512) {
            EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
            EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
        }
        std::size_t len = 0;
        EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()),
                       input.size());
        std::string sig(len, '\0');
        EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                       reinterpret_cast<const unsigned char*>(input.data()), input.size());
        sig.resize(len);
        EVP_MD_CTX_free(ctx);
        if (a == jose::algorithm::es256 || a == jose::algorithm::es384) {
            // DER to the r||s JWS carries.
            std::size_t size = a == jose::algorithm::es256 ? 32 : 48;
            const auto* p = reinterpret_cast<const unsigned char*>(sig.data());
            ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
            std::string raw(2 * size, '\0');
            BN_bn2binpad(ECDSA_SIG_get0_r(es), reinterpret_cast<unsigned char*>(raw.data()),
                         static_cast<int>(size));
            BN_bn2binpad(ECDSA_SIG_get0_s(es), reinterpret_cast<unsigned char*>(raw.data()) + size,
                         static_cast<int>(size));
            ECDSA_SIG_free(es);
            sig = raw;
        }
        return input + "." + b64(sig);
    }
};

std::string bn_param(EVP_PKEY* k, const char* name) {
    BIGNUM* bn = nullptr;
    EVP_PKEY_get_bn_param(k, name, &bn);
    std::string out(static_cast<std::size_t>(BN_num_bytes(bn)), '\0');
    BN_bn2bin(bn, reinterpret_cast<unsigned char*>(out.data()));
    BN_free(bn);
    return out;
}

local_key make_rsa(unsigned bits) {
    local_key k;
    k.key.reset(EVP_RSA_gen(bits));
    k.jwk = R"({"kty":"RSA","kid":"rsa","n":")" +
            b64(bn_param(k.key.get(), OSSL_PKEY_PARAM_RSA_N)) + R"(","e":")" +
            b64(bn_param(k.key.get(), OSSL_PKEY_PARAM_RSA_E)) + "\"}";
    return k;
}

local_key make_ec(const char* group, std::string_view crv, std::size_t size) {
    local_key k;
    k.key.reset(EVP_EC_gen(group));
    unsigned char point[1 + 2 * 48];
    std::size_t len = 0;
    EVP_PKEY_get_octet_string_param(k.key.get(), OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point,
                                    &len);
    std::string_view raw(reinterpret_cast<char*>(point) + 1, len - 1);
    k.jwk = R"({"kty":"EC","kid":"ec","crv":")" + std::string(crv) + R"(","x":")" +
            b64(raw.substr(0, size)) + R"(","y":")" + b64(raw.substr(size)) + "\"}";
    return k;
}

} // namespace

TEST(Base64url, RoundTripsAndRefusesOtherSpellings) {
    for (std::string s : {"", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\xfe\x00"})
        EXPECT_EQ(jose::base64url_decode(jose::base64url_encode(s)), s);
    EXPECT_EQ(jose::base64url_encode("\xfb\xff"), "-_8");
    EXPECT_EQ(jose::base64url_decode("QQ"), "A");
    EXPECT_FALSE(jose::base64url_decode("QQ=="));  // padding
    EXPECT_FALSE(jose::base64url_decode("+/8"));   // the other alphabet
    EXPECT_FALSE(jose::base64url_decode("QUJDR")); // 4k+1 characters
    EXPECT_FALSE(jose::base64url_decode("QR"));    // non-zero trailing bits
}

TEST(Jws, VerifiesTheRfc7515AndRfc8037Vectors) {
    auto rsa = keys_from(R"({"keys":[)" + rsa_jwk(a2_n) + "]}");
    EXPECT_EQ(jose::verify_signature(parsed(a2_token), rsa), jose::signature_check::verified);

    auto ec = keys_from(R"({"keys":[{"kty":"EC","crv":"P-256","x":")" + std::string(a3_x) +
                        R"(","y":")" + std::string(a3_y) + "\"}]}");
    EXPECT_EQ(jose::verify_signature(parsed(a3_token), ec), jose::signature_check::verified);

    // The A.4 payload is not a JSON object, so it is not a token; its signature still is one.
    auto ed =
        keys_from(R"({"keys":[{"kty":"OKP","crv":"Ed25519","x":")" + std::string(a4_x) + "\"}]}");
    ASSERT_EQ(ed.size(), 1u);
    auto dot = a4_token.rfind('.');
    auto sig = jose::base64url_decode(a4_token.substr(dot + 1));
    ASSERT_TRUE(sig);
    EXPECT_TRUE(ed[0].verify(jose::algorithm::eddsa, a4_token.substr(0, dot), *sig));
    EXPECT_FALSE(ed[0].verify(jose::algorithm::eddsa, a4_token.substr(0, dot - 1), *sig));
    EXPECT_EQ(refusal(a4_token), "the token payload is not a JSON object");
}

TEST(Jws, ATamperedTokenOrTheWrongKeyFails) {
    auto rsa = keys_from(R"({"keys":[)" + rsa_jwk(a2_n) + "]}");
    auto tampered = parsed(a2_token);
    tampered.signing_input.back() ^= 1; // the payload as signed, one bit off
    EXPECT_EQ(jose::verify_signature(tampered, rsa), jose::signature_check::bad_signature);
    auto bad_sig = parsed(a2_token);
    bad_sig.signature[10] ^= 1;
    EXPECT_EQ(jose::verify_signature(bad_sig, rsa), jose::signature_check::bad_signature);
    // The A.3 token (ES256) against the RSA key only: no key fits.
    EXPECT_EQ(jose::verify_signature(parsed(a3_token), rsa), jose::signature_check::no_key);
    // A key whose own alg is another one does not fit.
    auto ps_only = keys_from(R"({"keys":[)" + rsa_jwk(a2_n, R"(,"alg":"PS256")") + "]}");
    EXPECT_EQ(jose::verify_signature(parsed(a2_token), ps_only), jose::signature_check::no_key);
}

TEST(Jws, EveryAcceptedAlgorithmVerifiesWithAKeyMadeHere) {
    auto rsa = make_rsa(2048);
    auto p256 = make_ec("P-256", "P-256", 32);
    auto p384 = make_ec("P-384", "P-384", 48);
    struct row {
        jose::algorithm alg;
        const local_key* key;
    };
    for (auto [alg, key] :
         {row{jose::algorithm::rs256, &rsa}, row{jose::algorithm::rs384, &rsa},
          row{jose::algorithm::rs512, &rsa}, row{jose::algorithm::ps256, &rsa},
          row{jose::algorithm::ps384, &rsa}, row{jose::algorithm::ps512, &rsa},
          row{jose::algorithm::es256, &p256}, row{jose::algorithm::es384, &p384}}) {
        SCOPED_TRACE(std::string(jose::name(alg)));
        auto keys = keys_from(R"({"keys":[)" + key->jwk + "]}");
        auto token =
            key->sign(alg, R"({"alg":")" + std::string(jose::name(alg)) + "\"}", R"({"sub":"a"})");
        EXPECT_EQ(jose::verify_signature(parsed(token), keys), jose::signature_check::verified);
        // The same signature under another algorithm of the family does not verify.
        auto swapped = parsed(token);
        if (alg == jose::algorithm::rs256)
            swapped.alg = jose::algorithm::ps256;
        else if (alg == jose::algorithm::ps256)
            swapped.alg = jose::algorithm::rs256;
        else
            continue;
        EXPECT_EQ(jose::verify_signature(swapped, keys), jose::signature_check::bad_signature);
    }
}

TEST(Jws, TheKidPicksTheKey) {
    auto one = make_ec("P-256", "P-256", 32), two = make_ec("P-256", "P-256", 32);
    auto jwk2 = two.jwk;
    jwk2.replace(jwk2.find("\"ec\""), 4, "\"two\"");
    auto keys = keys_from(R"({"keys":[)" + one.jwk + "," + jwk2 + "]}");
    auto by_two = two.sign(jose::algorithm::es256, R"({"alg":"ES256","kid":"two"})", "{}");
    EXPECT_EQ(jose::verify_signature(parsed(by_two), keys), jose::signature_check::verified);
    auto wrong_kid = two.sign(jose::algorithm::es256, R"({"alg":"ES256","kid":"ec"})", "{}");
    EXPECT_EQ(jose::verify_signature(parsed(wrong_kid), keys),
              jose::signature_check::bad_signature);
    auto unknown = two.sign(jose::algorithm::es256, R"({"alg":"ES256","kid":"gone"})", "{}");
    EXPECT_EQ(jose::verify_signature(parsed(unknown), keys), jose::signature_check::no_key);
    // Without a kid every key that fits is tried.
    auto no_kid = two.sign(jose::algorithm::es256, R"({"alg":"ES256"})", "{}");
    EXPECT_EQ(jose::verify_signature(parsed(no_kid), keys), jose::signature_check::verified);
}

TEST(Jws, RefusesWhatIsNeverAccepted) {
    auto payload = b64(R"({"sub":"a"})");
    auto with_header = [&](std::string_view h) { return b64(h) + "." + payload + ".c2ln"; };
    EXPECT_NE(refusal(with_header(R"({"alg":"none"})")).find("none is not accepted"),
              std::string::npos);
    EXPECT_NE(refusal(with_header(R"({"alg":"HS256"})")).find("HS256 is not accepted"),
              std::string::npos);
    EXPECT_NE(refusal(with_header(R"({"alg":"ES512"})")).find("not accepted"), std::string::npos);
    EXPECT_EQ(refusal(with_header(R"({"typ":"JWT"})")), "the token header has no alg");
    EXPECT_NE(refusal(with_header(R"({"alg":"RS256","crit":["exp"]})")).find("crit"),
              std::string::npos);
    EXPECT_EQ(refusal(with_header(R"({"alg":"RS256","kid":7})")),
              "the token header's kid is not a string");
    EXPECT_EQ(refusal(b64(R"({"alg":"none"})") + "." + payload + "."),
              "algorithm none is not accepted (RS256/384/512, PS256/384/512, ES256/384 or "
              "EdDSA only)");
    EXPECT_EQ(refusal(b64(R"({"alg":"RS256"})") + "." + payload + "."),
              "the token signature is missing or not base64url");
    EXPECT_EQ(refusal("a.b"), "not a compact JWS (three dot-separated parts)");
    EXPECT_EQ(refusal("a.b.c.d"), "not a compact JWS (three dot-separated parts)");
    EXPECT_EQ(refusal("!!.b.c"), "the token header is not base64url");
    EXPECT_EQ(refusal(b64("[1]") + ".b.c"), "the token header is not a JSON object");
    EXPECT_NE(refusal(std::string(jose::max_token_bytes + 1, 'a')).find("larger than"),
              std::string::npos);
}

TEST(KeySet, SkipsKeysItCannotUseAndRefusesASetWithoutAny) {
    auto set = jose::parse_key_set(R"({"keys":[{"kty":"oct","k":"c2VjcmV0"},)" +
                                   rsa_jwk(a2_n, R"(,"use":"enc")") + "," +
                                   rsa_jwk(a2_n, R"(,"kid":"sig","use":"sig")") +
                                   R"(,{"kty":"EC","crv":"P-521","x":"AA",)"
                                   R"("y":"AA"},{"kty":"OKP","crv":"X25519","x":"AA"},7]})");
    ASSERT_TRUE(std::holds_alternative<jose::key_set>(set));
    const auto& ks = std::get<jose::key_set>(set);
    ASSERT_EQ(ks.keys.size(), 1u);
    EXPECT_EQ(ks.keys[0].kid(), "sig");
    EXPECT_EQ(ks.skipped, 5u);

    auto refused = [](std::string_view text) {
        auto r = jose::parse_key_set(text);
        auto* e = std::get_if<std::string>(&r);
        return e ? *e : std::string();
    };
    EXPECT_NE(refused("not json").find("not JSON"), std::string::npos);
    EXPECT_NE(refused(R"({"keys":{}})").find("\"keys\" array"), std::string::npos);
    EXPECT_NE(refused(R"({"keys":[{"kty":"oct","k":"c2VjcmV0"}]})")
                  .find("no usable signature key (symmetric keys are never accepted)"),
              std::string::npos);
    // A short RSA modulus (1024 bits) is no key at all.
    constexpr std::string_view short_n =
        "0TQGH4DQ5AEY7CyqdeEV2xddIqLFJxJMZSN8b8TybBhOyQfdzQMst7zaJF1N9K2d-9lnSfCUjXW17ekMct2XTM--"
        "IEAl"
        "rtkEZ0O_xGeOV0rSYTCQ-mEHoVG_8Ru-Whnc5Fku3YceVap3V_kclLdrDP61ceoqpUlFP70ShHNl_r0";
    EXPECT_NE(refused(R"({"keys":[)" + rsa_jwk(short_n) + "]}").find("1024 bits is too short"),
              std::string::npos);
    // A point that is not on the curve.
    EXPECT_NE(refused(R"({"keys":[{"kty":"EC","crv":"P-256","x":")" + std::string(a3_x) +
                      R"(","y":")" + std::string(a3_x) + "\"}]}")
                  .find("not a point on the curve"),
              std::string::npos);
    EXPECT_NE(refused(R"({"keys":[)" + rsa_jwk(a2_n, R"(,"alg":"ES256")") + "]}")
                  .find("does not match its type"),
              std::string::npos);
}

namespace {

jose::compact_jws token_with(json::object payload, json::object header = {{"alg", "RS256"}}) {
    jose::compact_jws t;
    t.header = std::move(header);
    t.payload = std::move(payload);
    return t;
}

constexpr std::int64_t now = 1'800'000'000;

json::object good_claims() {
    return {{"iss", "https://idp.example"},
            {"aud", "https://gw.example/mcp"},
            {"sub", "alice"},
            {"exp", now + 300},
            {"groups", json::array{"eng", "ops"}}};
}

jose::token_rules rules() {
    return {"https://idp.example", "https://gw.example/mcp", "groups"};
}

std::string claims_refusal(json::object payload, json::object header = {{"alg", "RS256"}}) {
    auto r = jose::check_claims(token_with(std::move(payload), std::move(header)), rules(), now);
    auto* e = std::get_if<std::string>(&r);
    return e ? *e : std::string("accepted");
}

} // namespace

TEST(AccessToken, AcceptsAGoodTokenAndReadsItsGroups) {
    auto r = jose::check_claims(token_with(good_claims()), rules(), now);
    ASSERT_TRUE(std::holds_alternative<jose::verified_token>(r));
    const auto& v = std::get<jose::verified_token>(r);
    EXPECT_EQ(v.subject, "alice");
    EXPECT_EQ(v.issuer, "https://idp.example");
    EXPECT_EQ(v.groups, (std::vector<std::string>{"eng", "ops"}));

    auto spaced = good_claims();
    spaced["groups"] = "eng  ops";
    spaced["aud"] = json::array{"other", "https://gw.example/mcp"};
    auto s = jose::check_claims(token_with(spaced), rules(), now);
    ASSERT_TRUE(std::holds_alternative<jose::verified_token>(s));
    EXPECT_EQ(std::get<jose::verified_token>(s).groups, (std::vector<std::string>{"eng", "ops"}));
    for (std::string_view typ : {"JWT", "at+jwt", "application/at+JWT"})
        EXPECT_EQ(claims_refusal(good_claims(), {{"alg", "RS256"}, {"typ", typ}}), "accepted");
}

TEST(AccessToken, RefusesEachBrokenClaim) {
    auto with = [](std::string_view key, json::value v) {
        auto c = good_claims();
        c[key] = std::move(v);
        return c;
    };
    auto without = [](std::string_view key) {
        auto c = good_claims();
        c.erase(key);
        return c;
    };
    EXPECT_EQ(claims_refusal(with("iss", "https://evil.example")),
              "the token's issuer is not https://idp.example");
    EXPECT_EQ(claims_refusal(with("aud", "https://gw.example/mcp/")),
              "the token's audience is not https://gw.example/mcp");
    EXPECT_EQ(claims_refusal(without("aud")), "the token's audience is not https://gw.example/mcp");
    EXPECT_EQ(claims_refusal(with("sub", "")), "the token has no subject (sub)");
    EXPECT_EQ(claims_refusal(with("sub", 7)), "the token has no subject (sub)");
    EXPECT_EQ(claims_refusal(without("exp")), "the token has no expiry (exp)");
    EXPECT_EQ(claims_refusal(with("exp", now - jose::clock_leeway_seconds)),
              "the token has expired");
    EXPECT_EQ(claims_refusal(with("exp", now - jose::clock_leeway_seconds + 1)), "accepted");
    EXPECT_EQ(claims_refusal(with("nbf", now + jose::clock_leeway_seconds + 1)),
              "the token is not valid yet (nbf)");
    EXPECT_EQ(claims_refusal(with("nbf", now + jose::clock_leeway_seconds)), "accepted");
    EXPECT_EQ(claims_refusal(with("nbf", "soon")), "the token's nbf is not a date");
    // A date no clock reaches, or no number at all, is not a date: never converted to seconds.
    for (auto* exp : {"1e999", "-1e999", "1e300", "18446744073709551615", "\"never\""})
        EXPECT_EQ(claims_refusal(with("exp", json::parse(exp))), "the token's exp is not a date")
            << exp;
    EXPECT_EQ(claims_refusal(with("exp", jose::latest_numeric_date)), "accepted");
    EXPECT_EQ(claims_refusal(with("iat", json::parse("-1e999"))), "the token's iat is not a date");
    EXPECT_EQ(claims_refusal(with("iat", now + 3600)), "the token was issued in the future (iat)");
    EXPECT_EQ(claims_refusal(good_claims(), {{"alg", "RS256"}, {"typ", "oauth-id-jag+jwt"}}),
              "the token's type is not an access token (typ JWT or at+jwt)");
}

// RFC 7517 appendix A.1: the example public key set. Its EC key is for encryption ("use":
// "enc") and is skipped; its RSA key verifies signatures.
TEST(KeySet, ReadsTheRfc7517ExampleSet) {
    auto set = jose::parse_key_set(
        R"({"keys":[{"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",)"
        R"("y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM","use":"enc","kid":"1"},)"
        R"({"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7)"
        R"(aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0)"
        R"(h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD0)"
        R"(8qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJz)"
        R"(KnqDKgw","e":"AQAB","alg":"RS256","kid":"2011-04-29"}]})");
    ASSERT_TRUE(std::holds_alternative<jose::key_set>(set)) << std::get<std::string>(set);
    const auto& ks = std::get<jose::key_set>(set);
    ASSERT_EQ(ks.keys.size(), 1u);
    EXPECT_EQ(ks.keys[0].kid(), "2011-04-29");
    EXPECT_EQ(ks.skipped, 1u);
}

TEST(KeySet, ARefetchNamesTheKeysItWithdrew) {
    auto set_of = [](std::vector<std::string> jwks) {
        std::string text = R"({"keys":[)";
        for (std::size_t i = 0; i < jwks.size(); ++i)
            text += (i ? "," : "") + jwks[i];
        return std::get<jose::key_set>(jose::parse_key_set(text + "]}"));
    };
    auto rsa = rsa_jwk(a2_n, R"(,"kid":"A")");
    auto ec = std::string(R"({"kty":"EC","crv":"P-256","kid":"B","x":")") + std::string(a3_x) +
              R"(","y":")" + std::string(a3_y) + "\"}";
    auto no_kid = std::string(R"({"kty":"OKP","crv":"Ed25519","x":")") + std::string(a4_x) + "\"}";
    auto before = set_of({rsa, ec, no_kid});
    using kids = std::vector<std::string>;
    EXPECT_EQ(jose::withdrawn_kids(before, set_of({no_kid, ec, rsa})),
              kids{}); // order is no change
    EXPECT_EQ(jose::withdrawn_kids(before, set_of({ec, no_kid})), kids{"A"});
    EXPECT_EQ(jose::withdrawn_kids(before, set_of({rsa, ec})), kids{""});
    EXPECT_EQ(jose::withdrawn_kids(before, set_of({no_kid})), (kids{"A", "B"}));
    // Another key under the same kid is a withdrawal of the old one, and so is a new alg on it.
    auto other = make_ec("P-256", "P-256", 32).jwk;
    other.replace(other.find("\"ec\""), 4, "\"B\"");
    EXPECT_EQ(jose::withdrawn_kids(before, set_of({rsa, other, no_kid})), kids{"B"});
    auto rs384 = rsa_jwk(a2_n, R"(,"kid":"A","alg":"RS384")");
    EXPECT_EQ(jose::withdrawn_kids(before, set_of({rs384, ec, no_kid})), kids{"A"});
    // A kid repeated in the set is named once.
    auto twice = set_of({rsa, rsa_jwk(a2_n, R"(,"kid":"A","alg":"RS256")"), ec});
    EXPECT_EQ(jose::withdrawn_kids(twice, set_of({ec})), kids{"A"});
}
