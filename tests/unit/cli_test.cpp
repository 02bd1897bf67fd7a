#include "transport/cli.hpp"

#include <gtest/gtest.h>

using namespace gate;

TEST(cli, defaults) {
    auto o = std::get<options>(parse_command_line({}));
    EXPECT_EQ(o.host, "127.0.0.1");
    EXPECT_EQ(o.port, default_port);
    EXPECT_EQ(o.log_format, "text");
    EXPECT_EQ(o.log_level, "info");
}

TEST(cli, parses_every_option) {
    auto o = std::get<options>(parse_command_line(
        {"--config", "x.json", "--host", "0.0.0.0", "--port", "0", "--log-format", "json",
         "--log-level", "debug", "--validate", "--watch"}));
    EXPECT_EQ(*o.config, "x.json");
    EXPECT_EQ(o.host, "0.0.0.0");
    EXPECT_EQ(o.port, 0);
    EXPECT_TRUE(o.validate);
    EXPECT_TRUE(o.watch);
}

TEST(cli, refuses_bad_flags_with_a_reason) {
    for (auto args : std::vector<std::vector<std::string>>{{"--bogus"},
                                                           {"--port", "70000"},
                                                           {"--port", "8x"},
                                                           {"--port"},
                                                           {"--log-format", "xml"},
                                                           {"--log-level", "trace"}}) {
        auto r = parse_command_line(args);
        ASSERT_TRUE(std::holds_alternative<usage_error>(r)) << args[0];
        EXPECT_FALSE(std::get<usage_error>(r).message.empty());
    }
}
