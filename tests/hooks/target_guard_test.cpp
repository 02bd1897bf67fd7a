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
    EXPECT_TRUE(v6({0xfe, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));   // site-local
    EXPECT_TRUE(v6({0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));   // multicast
    EXPECT_TRUE(v6({0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));      // discard 100::/64
    EXPECT_TRUE(v6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1})); // mapped loopback
    EXPECT_FALSE(v6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 8, 8, 8, 8}));  // mapped public
    EXPECT_FALSE(v6({0x26, 0x06, 0x47, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x68, 0x10, 0x84, 0xe5}));
    EXPECT_FALSE(v6({0x20, 0x01, 0x48, 0x60, 0x48, 0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0x88, 0x88}));
    std::array<std::uint8_t, 3> odd{1, 2, 3};
    EXPECT_TRUE(is_non_public(odd));
}

// Every IPv6 form that carries an IPv4 address (docs/webhooks.md, "Targets"): the two a
// public receiver may genuinely be reached through are judged by the address they carry, the
// deprecated and tunnelled ones are refused whole.
TEST(target_guard, ipv6_forms_carrying_an_ipv4_address) {
    struct form {
        const char* name;
        std::array<std::uint8_t, 12> prefix; // the first 12 bytes; the IPv4 address follows
        bool public_one_allowed;
    };
    for (const auto& [name, prefix, public_one_allowed] : {
             form{"IPv4-mapped ::ffff:0:0/96", {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, true},
             form{"NAT64 64:ff9b::/96", {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}, true},
             form{"IPv4-translated ::ffff:0:0:0/96",
                  {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0},
                  false},
             form{"IPv4-compatible ::/96", {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, false},
             form{"local-use NAT64 64:ff9b:1::/48",
                  {0, 0x64, 0xff, 0x9b, 0, 1, 0, 0, 0, 0, 0, 0},
                  false},
             form{"Teredo 2001::/32",
                  {0x20, 0x01, 0, 0, 0x41, 0x36, 0xe3, 0x78, 0x80, 0, 0x63, 0xbf},
                  false},
             form{"6to4 2002::/16", {0x20, 0x02, 8, 8, 8, 8, 0, 0, 0, 0, 0, 0}, false},
         }) {
        for (std::array<std::uint8_t, 4> v4 : {std::array<std::uint8_t, 4>{127, 0, 0, 1},
                                               {10, 0, 0, 1},
                                               {169, 254, 169, 254},
                                               {0, 0, 0, 0},
                                               {8, 8, 8, 8}}) {
            std::array<std::uint8_t, 16> a{};
            std::copy(prefix.begin(), prefix.end(), a.begin());
            std::copy(v4.begin(), v4.end(), a.begin() + 12);
            bool public_v4 = v4[0] == 8;
            EXPECT_EQ(is_non_public(a), !(public_v4 && public_one_allowed))
                << name << " carrying " << int(v4[0]) << "." << int(v4[1]) << "." << int(v4[2])
                << "." << int(v4[3]);
        }
    }
    // 6to4 carries its address in bytes 2-5, refused whatever it is.
    EXPECT_TRUE(v6({0x20, 0x02, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
    EXPECT_TRUE(v6({0x20, 0x01, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));       // benchmarking
    EXPECT_TRUE(v6({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})); // documentation
    EXPECT_TRUE(v6({0x3f, 0xff, 0x0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));    // documentation
    EXPECT_FALSE(v6({0x3f, 0xff, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
    std::array<std::uint8_t, 4> relay{192, 88, 99, 1}; // 6to4 relay anycast
    EXPECT_TRUE(is_non_public(relay));
}

TEST(target_guard, address_literals_in_urls_are_judged_at_creation) {
    using gate::hooks::non_public_literal;
    EXPECT_EQ(non_public_literal("127.0.0.1"), "127.0.0.1");
    EXPECT_EQ(non_public_literal("169.254.169.254"), "169.254.169.254");
    EXPECT_EQ(non_public_literal("[::1]"), "::1");
    EXPECT_EQ(non_public_literal("::1"), "::1");
    EXPECT_EQ(non_public_literal("[::ffff:10.0.0.1]"), "::ffff:10.0.0.1");
    EXPECT_EQ(non_public_literal("::ffff:0:7f00:1"), "::ffff:0:7f00:1");
    EXPECT_EQ(non_public_literal("[::]"), "::");
    // Every spelling the resolver reads as an IPv4 address.
    for (const char* loopback : {"2130706433", "0x7f000001", "0177.0.0.1", "0x7f.1", "127.1",
                                 "0x7F.0.0.1", "017700000001"})
        EXPECT_EQ(non_public_literal(loopback), "127.0.0.1") << loopback;
    EXPECT_EQ(non_public_literal("0"), "0.0.0.0");
    EXPECT_EQ(non_public_literal("0xa9fea9fe"), "169.254.169.254");
    EXPECT_FALSE(non_public_literal("8.8.8.8"));
    EXPECT_FALSE(non_public_literal("134744072")); // 8.8.8.8
    EXPECT_FALSE(non_public_literal("[2606:4700::1]"));
    EXPECT_FALSE(non_public_literal("localhost")); // a name: judged when resolved
    EXPECT_FALSE(non_public_literal("hooks.example.com"));
    EXPECT_FALSE(non_public_literal("0x7f.example"));
}
