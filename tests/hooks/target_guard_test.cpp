// Which resolved addresses a delivery may not dial unless private targets are allowed.
#include "hooks/target_guard.hpp"

#include <array>
#include <gtest/gtest.h>

using gate::hooks::is_non_public;

namespace {
bool v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
    std::array<std::uint8_t, 4> x{a, b, c, d};
    return is_non_public(x);
}
bool v6(std::array<std::uint8_t, 16> x) {
    return is_non_public(x);
}
} // namespace

TEST(target_guard, private_and_special_ipv4_ranges_are_refused) {
    EXPECT_TRUE(v4(127, 0, 0, 1));
    EXPECT_TRUE(v4(10, 1, 2, 3));
    EXPECT_TRUE(v4(172, 16, 0, 1));
    EXPECT_TRUE(v4(172, 31, 255, 255));
    EXPECT_TRUE(v4(192, 168, 1, 1));
    EXPECT_TRUE(v4(169, 254, 169, 254)); // cloud metadata
    EXPECT_TRUE(v4(100, 64, 0, 1));
    EXPECT_TRUE(v4(0, 0, 0, 0));
    EXPECT_TRUE(v4(224, 0, 0, 1));
    EXPECT_TRUE(v4(255, 255, 255, 255));
    EXPECT_FALSE(v4(172, 32, 0, 1));
    EXPECT_FALSE(v4(8, 8, 8, 8));
    EXPECT_FALSE(v4(93, 184, 216, 34));
}

TEST(target_guard, ipv6_ranges_and_embedded_ipv4_are_judged) {
    EXPECT_TRUE(v6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));         // ::1
    EXPECT_TRUE(v6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));         // ::
    EXPECT_TRUE(v6({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));   // link-local
    EXPECT_TRUE(v6({0xfd, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));   // unique local
    EXPECT_TRUE(v6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1})); // mapped loopback
    EXPECT_TRUE(v6({0x20, 0x02, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));  // 6to4 of 10.0.0.1
    EXPECT_FALSE(v6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 8, 8, 8, 8}));  // mapped public
    EXPECT_FALSE(v6({0x26, 0x06, 0x47, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x68, 0x10, 0x84, 0xe5}));
    std::array<std::uint8_t, 3> odd{1, 2, 3};
    EXPECT_TRUE(is_non_public(odd));
}

TEST(target_guard, address_literals_in_urls_are_judged_at_creation) {
    using gate::hooks::is_non_public_literal;
    EXPECT_TRUE(is_non_public_literal("127.0.0.1"));
    EXPECT_TRUE(is_non_public_literal("169.254.169.254"));
    EXPECT_TRUE(is_non_public_literal("[::1]"));
    EXPECT_TRUE(is_non_public_literal("[::ffff:10.0.0.1]"));
    EXPECT_FALSE(is_non_public_literal("8.8.8.8"));
    EXPECT_FALSE(is_non_public_literal("localhost")); // a name: judged when resolved
    EXPECT_FALSE(is_non_public_literal("hooks.example.com"));
}
