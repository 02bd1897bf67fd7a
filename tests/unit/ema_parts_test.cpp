// The plain parts of enterprise-managed authorization: the minting key, the ID-JAG's claims,
// and the ledger that makes each assertion single-use.
#include "policy/jti_ledger.hpp"
#include "protocol/jose/es256_signer.hpp"
#include "protocol/jose/id_jag.hpp"
#include "protocol/jose/jws.hpp"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

namespace jose = gate::protocol::jose;
namespace json = boost::json;

namespace {

std::string pem_of(EVP_PKEY* key) {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    auto len = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<std::size_t>(len));
    BIO_free(bio);
    EVP_PKEY_free(key);
    return out;
}

} // namespace

TEST(Es256Signer, SignsWhatTheVerifierAcceptsUnderItsPublishedKey) {
    auto made = jose::es256_signer::from_pem(pem_of(EVP_EC_gen("P-256")));
    ASSERT_TRUE(std::holds_alternative<jose::es256_signer>(made));
    const auto& signer = std::get<jose::es256_signer>(made);
    EXPECT_EQ(signer.kid().size(), 43u); // a SHA-256 thumbprint, base64url
    EXPECT_FALSE(signer.public_jwk().contains("d"));
    auto token = signer.sign(json::object{{"typ", "at+jwt"}}, json::object{{"sub", "a"}});
    auto parsed = jose::parse_compact(token);
    ASSERT_TRUE(std::holds_alternative<jose::compact_jws>(parsed));
    auto key = jose::public_key::from_jwk(signer.public_jwk());
    ASSERT_TRUE(std::holds_alternative<jose::public_key>(key));
    std::vector<jose::public_key> keys{std::get<jose::public_key>(key)};
    const auto& jws = std::get<jose::compact_jws>(parsed);
    EXPECT_EQ(jws.kid, signer.kid());
    EXPECT_EQ(jose::verify_signature(jws, keys), jose::signature_check::verified);
}

TEST(Es256Signer, RefusesWhatIsNotAnEs256PrivateKey) {
    auto refusal = [](std::string pem) {
        auto r = jose::es256_signer::from_pem(pem);
        auto* e = std::get_if<std::string>(&r);
        return e ? *e : std::string("accepted");
    };
    EXPECT_NE(refusal("garbage").find("not a PEM private key"), std::string::npos);
    EXPECT_NE(refusal(pem_of(EVP_RSA_gen(2048))).find("not an EC key on P-256"), std::string::npos);
    EXPECT_NE(refusal(pem_of(EVP_EC_gen("P-384"))).find("not an EC key on P-256"),
              std::string::npos);
}

namespace {

constexpr std::int64_t now = 1'800'000'000;

jose::compact_jws assertion(json::object claims, std::string typ = "oauth-id-jag+jwt") {
    jose::compact_jws t;
    t.header = {{"alg", "ES256"}, {"typ", typ}};
    t.payload = {{"iss", "https://idp.example"},
                 {"sub", "alice"},
                 {"aud", "https://gw.example"},
                 {"resource", "https://gw.example/mcp"},
                 {"jti", "j1"},
                 {"exp", now + 60},
                 {"scope", "a b"}};
    for (auto& [k, v] : claims)
        t.payload[k] = v;
    return t;
}

std::string why(const jose::compact_jws& t) {
    auto r = jose::check_id_jag(t,
                                {"https://idp.example",
                                 {"https://gw.example", "https://gw.example/mcp"},
                                 "https://gw.example/mcp"},
                                now);
    auto* e = std::get_if<std::string>(&r);
    return e ? *e : std::string("accepted");
}

} // namespace

TEST(IdJag, AcceptsAnAssertionForThisGatewayAndRefusesEveryOther) {
    EXPECT_EQ(why(assertion({})), "accepted");
    EXPECT_EQ(why(assertion({{"aud", "https://gw.example/mcp"}})), "accepted");
    EXPECT_NE(why(assertion({}, "JWT")).find("not an ID-JAG"), std::string::npos);
    EXPECT_NE(why(assertion({{"iss", "https://evil.example"}})).find("issuer"), std::string::npos);
    EXPECT_NE(why(assertion({{"aud", "https://other.example"}})).find("aud"), std::string::npos);
    EXPECT_NE(why(assertion({{"resource", "https://gw.example/other"}})).find("another resource"),
              std::string::npos);
    EXPECT_NE(why(assertion({{"jti", ""}})).find("no jti"), std::string::npos);
    EXPECT_NE(why(assertion({{"sub", ""}})).find("no subject"), std::string::npos);
    EXPECT_NE(why(assertion({{"exp", now - 61}})).find("expired"), std::string::npos);
    auto ok = jose::check_id_jag(
        assertion({}), {"https://idp.example", {"https://gw.example"}, "https://gw.example/mcp"},
        now);
    ASSERT_TRUE(std::holds_alternative<jose::verified_assertion>(ok));
    EXPECT_EQ(std::get<jose::verified_assertion>(ok).scopes, (std::vector<std::string>{"a", "b"}));
}

TEST(JtiLedger, EachJtiOnceUntilItExpiresAndFullMeansRefused) {
    gate::policy::jti_ledger ledger(2);
    using r = gate::policy::jti_ledger::redemption;
    EXPECT_EQ(ledger.redeem("idp", "a", 100, 10), r::first);
    EXPECT_EQ(ledger.redeem("idp", "a", 100, 20), r::replayed);
    EXPECT_EQ(ledger.redeem("other", "a", 100, 20), r::first); // scoped by issuer
    EXPECT_EQ(ledger.redeem("idp", "b", 100, 20), r::full);    // fail closed at the bound
    EXPECT_EQ(ledger.redeem("idp", "b", 200, 101), r::first);  // the expired ones forgotten
    EXPECT_EQ(ledger.redeem("idp", "a", 200, 101), r::first);
    EXPECT_EQ(ledger.size(), 2u);
}
