// The delivery signature against RFC 4231's HMAC-SHA256 test vectors.
#include "hooks/signature.hpp"

#include <gtest/gtest.h>

using gate::hooks::hmac_sha256_hex;

TEST(signature, matches_rfc_4231) {
    // Test case 2.
    EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    // Test case 1: key 0x0b x 20, "Hi There".
    EXPECT_EQ(hmac_sha256_hex(std::string(20, '\x0b'), "Hi There"),
              "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}
