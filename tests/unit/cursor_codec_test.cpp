#include "protocol/cursor_codec.hpp"

#include <gtest/gtest.h>

using namespace gate::protocol;

namespace {
cursor_codec::key_type key(unsigned char fill) {
    cursor_codec::key_type k;
    k.fill(fill);
    return k;
}
} // namespace

TEST(cursor_codec, round_trips) {
    cursor_codec c(key(1));
    cursor in{list_kind::prompts, 0x1122334455667788ull, 400, 42};
    auto out = c.decode(c.encode(in));
    ASSERT_TRUE(out);
    EXPECT_EQ(out->kind, list_kind::prompts);
    EXPECT_EQ(out->fingerprint, in.fingerprint);
    EXPECT_EQ(out->offset, 400u);
    EXPECT_EQ(out->principal, 42u);
}

TEST(cursor_codec, rejects_garbage_and_truncation) {
    cursor_codec c(key(1));
    EXPECT_FALSE(c.decode(""));
    EXPECT_FALSE(c.decode("not-a-cursor"));
    auto text = c.encode({list_kind::tools, 1, 2, 3});
    EXPECT_FALSE(c.decode(text.substr(0, text.size() - 1)));
    EXPECT_FALSE(c.decode(text + "A"));
}

TEST(cursor_codec, rejects_tampering) {
    cursor_codec c(key(1));
    auto text = c.encode({list_kind::tools, 1, 2, 3});
    for (std::size_t i = 0; i < text.size(); ++i) {
        auto t = text;
        t[i] = t[i] == 'A' ? 'B' : 'A';
        EXPECT_FALSE(c.decode(t)) << "position " << i;
    }
}

TEST(cursor_codec, another_key_does_not_accept_it) {
    auto text = cursor_codec(key(1)).encode({list_kind::tools, 1, 2, 3});
    EXPECT_FALSE(cursor_codec(key(2)).decode(text));
}

TEST(cursor_codec, principal_hash_separates_fields) {
    EXPECT_NE(principal_hash("ab", "c"), principal_hash("a", "bc"));
    EXPECT_EQ(principal_hash("iss", "sub"), principal_hash("iss", "sub"));
}
