#include "transport/http/host_guard.hpp"

#include <gtest/gtest.h>

using namespace gate::transport;

TEST(host_guard, default_localhost_set_with_ports_stripped) {
    host_guard g({"localhost", "127.0.0.1", "::1"}, false);
    EXPECT_EQ(g.check("localhost:8090", std::nullopt), host_verdict::allowed);
    EXPECT_EQ(g.check("127.0.0.1", std::nullopt), host_verdict::allowed);
    EXPECT_EQ(g.check("[::1]:8090", std::nullopt), host_verdict::allowed);
    EXPECT_EQ(g.check("LOCALHOST", std::nullopt), host_verdict::allowed);
    EXPECT_EQ(g.check("evil.example", std::nullopt), host_verdict::forbidden_host);
    EXPECT_EQ(g.check(std::nullopt, std::nullopt), host_verdict::forbidden_host);
}

TEST(host_guard, origin_is_checked_by_hostname) {
    host_guard g({"localhost"}, false);
    EXPECT_EQ(g.check("localhost", "http://localhost:6274"), host_verdict::allowed);
    EXPECT_EQ(g.check("localhost", "http://evil.example"), host_verdict::forbidden_origin);
    EXPECT_EQ(g.check("localhost", "null"), host_verdict::forbidden_origin);
}

TEST(host_guard, star_disables_the_check) {
    host_guard g({"*"}, true);
    EXPECT_EQ(g.check("evil.example", "http://evil.example"), host_verdict::allowed);
}

TEST(host_guard, a_set_value_replaces_the_default) {
    host_guard g({"gate.example.com"}, false);
    EXPECT_EQ(g.check("localhost", std::nullopt), host_verdict::forbidden_host);
    EXPECT_EQ(g.check("gate.example.com:443", std::nullopt), host_verdict::allowed);
}

TEST(host_guard, a_port_that_is_not_a_number_is_no_host_at_all) {
    host_guard g({"localhost", "127.0.0.1", "::1"}, false);
    EXPECT_EQ(g.check("localhost:8090", std::nullopt), host_verdict::allowed);
    EXPECT_EQ(g.check("[::1]:8090", std::nullopt), host_verdict::allowed);
    for (std::string_view bad :
         {"localhost:8090.evil.com", "localhost:", "localhost:80a", "localhost:1234567", "[::1]x",
          "[::1]:", "[::1", "localhost@evil", "local host", "localhost/x", ""})
        EXPECT_EQ(g.check(bad, std::nullopt), host_verdict::forbidden_host) << bad;
    EXPECT_EQ(g.check("localhost", "http://localhost:8090.evil.com"),
              host_verdict::forbidden_origin);
}

// Names compare without regard to ASCII case on both sides: the configured list, the Host
// header and the Origin's authority; a name one byte longer or shorter is another name.
TEST(host_guard, names_compare_without_case_on_every_side) {
    host_guard g({"Gate.Example.com"}, false);
    EXPECT_EQ(g.check("gate.EXAMPLE.com:443", "https://GATE.example.COM"), host_verdict::allowed);
    EXPECT_EQ(g.check("gate.example.co", std::nullopt), host_verdict::forbidden_host);
    EXPECT_EQ(g.check("gate.example.comm", std::nullopt), host_verdict::forbidden_host);
    EXPECT_EQ(g.check("gate.example.com", "https://gate.example.com.evil"),
              host_verdict::forbidden_origin);
}
