// Sealing what the fleet's store keeps (protocol/sealed_box, gateway/accounts/sealed_tokens):
// it opens under the key that sealed it, or the previous one after a rotation, and under its
// own name only; a changed byte, another key or another name does not open.
#include "gateway/accounts/sealed_tokens.hpp"
#include "protocol/sealed_box.hpp"

#include <gtest/gtest.h>

using namespace gate;

namespace {

protocol::sealing_key key_of(char fill) {
    return std::get<protocol::sealing_key>(protocol::read_sealing_key(std::string(64, fill)));
}

} // namespace

TEST(sealed_box, a_key_is_32_bytes_in_base64_base64url_or_hex) {
    auto b64 = protocol::read_sealing_key("BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=");
    auto url = protocol::read_sealing_key("BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc");
    auto hex = protocol::read_sealing_key(std::string(32, '0') + std::string(32, '7'));
    ASSERT_TRUE(std::holds_alternative<protocol::sealing_key>(b64));
    EXPECT_EQ(std::get<protocol::sealing_key>(b64).id, std::get<protocol::sealing_key>(url).id);
    EXPECT_TRUE(std::holds_alternative<protocol::sealing_key>(hex));
    for (auto bad : {"", "short", "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcH"}) {
        auto r = protocol::read_sealing_key(bad);
        ASSERT_TRUE(std::holds_alternative<std::string>(r)) << bad;
        EXPECT_NE(std::get<std::string>(r).find("256-bit"), std::string::npos);
    }
}

TEST(sealed_box,
     a_record_sealed_under_the_previous_key_opens_one_copied_under_another_name_does_not) {
    auto old_key = key_of('1'), new_key = key_of('2');
    auto record = protocol::seal("secret text", old_key, "files:alice");
    EXPECT_EQ(record.find("secret"), std::string::npos);
    EXPECT_EQ(protocol::open_sealed(record, {new_key, old_key}, "files:alice"), "secret text");
    EXPECT_FALSE(protocol::open_sealed(record, {new_key}, "files:alice"));
    EXPECT_FALSE(protocol::open_sealed(record, {old_key}, "files:bob"));
    auto changed = record;
    changed[changed.size() - 3] = changed[changed.size() - 3] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(protocol::open_sealed(changed, {old_key}, "files:alice"));
    EXPECT_FALSE(protocol::open_sealed("v1.", {old_key}, "files:alice"));
    EXPECT_NE(protocol::seal("x", old_key, "n"), protocol::seal("x", old_key, "n")); // fresh nonce
}

TEST(sealed_box, tokens_come_back_as_they_were_kept) {
    using namespace gateway::accounts;
    auto k = key_of('3');
    account_tokens t{"at",
                     "rt",
                     wall_clock::time_point(std::chrono::seconds(1'900'000'000)),
                     "a b",
                     wall_clock::time_point(std::chrono::seconds(1'800'000'000)),
                     {"client-a", "s3cret", "client_secret_post"}};
    auto opened = open_tokens(seal_tokens(t, k, "files:x"), {k}, "files:x");
    ASSERT_TRUE(opened);
    EXPECT_EQ(opened->access_token, "at");
    EXPECT_EQ(opened->refresh_token, "rt");
    EXPECT_EQ(opened->expires_at, t.expires_at);
    EXPECT_EQ(opened->scope, "a b");
    // The client they were issued to, so another instance refreshes them as that client.
    EXPECT_EQ(opened->client.id, "client-a");
    EXPECT_EQ(opened->client.secret, "s3cret");
    EXPECT_EQ(opened->client.method, "client_secret_post");
    t.expires_at = wall_clock::time_point::max();
    EXPECT_EQ(open_tokens(seal_tokens(t, k, "n"), {k}, "n")->expires_at,
              wall_clock::time_point::max());
}
