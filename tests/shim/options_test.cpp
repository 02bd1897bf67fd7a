#include "shim/options.hpp"

#include <gtest/gtest.h>

using namespace gate::shim;

namespace {
options parse_ok(std::vector<std::string> args) {
    auto r = parse_command_line(args);
    if (auto* e = std::get_if<usage_error>(&r))
        ADD_FAILURE() << e->message;
    return std::get<options>(r);
}
std::string parse_error(std::vector<std::string> args) {
    auto r = parse_command_line(args);
    if (!std::holds_alternative<usage_error>(r)) {
        ADD_FAILURE() << "accepted";
        return {};
    }
    return std::get<usage_error>(r).message;
}
} // namespace

TEST(ShimOptions, DefaultsAreTheSpecTable) {
    auto o = parse_ok({"--", "server"});
    EXPECT_EQ(o.port, 8091);
    EXPECT_EQ(o.host, "127.0.0.1");
    EXPECT_EQ(o.max_sessions, 64u);
    EXPECT_EQ(o.max_body_bytes, 1048576u);
    EXPECT_TRUE(o.env_passthrough.empty());
    EXPECT_FALSE(o.dir);
    EXPECT_FALSE(o.bearer_env);
    EXPECT_FALSE(o.probe);
    EXPECT_EQ(o.log_format, "text");
    EXPECT_EQ(o.log_level, "info");
    EXPECT_EQ(o.command, std::vector<std::string>{"server"});
}

TEST(ShimOptions, EveryFlag) {
    auto o = parse_ok({"--port",
                       "0",
                       "--host",
                       "::1",
                       "--max-sessions",
                       "3",
                       "--max-body-bytes",
                       "100",
                       "--env-passthrough",
                       "PATH,HOME",
                       "--dir",
                       "/tmp",
                       "--bearer-env",
                       "TOKEN",
                       "--probe",
                       "--log-format",
                       "json",
                       "--log-level",
                       "debug",
                       "--",
                       "npx",
                       "-y",
                       "pkg",
                       "--port",
                       "9"});
    EXPECT_EQ(o.port, 0);
    EXPECT_EQ(o.host, "::1");
    EXPECT_EQ(o.max_sessions, 3u);
    EXPECT_EQ(o.max_body_bytes, 100u);
    EXPECT_EQ(o.env_passthrough, (std::vector<std::string>{"PATH", "HOME"}));
    EXPECT_EQ(o.dir, "/tmp");
    EXPECT_EQ(o.bearer_env, "TOKEN");
    EXPECT_TRUE(o.probe);
    EXPECT_EQ(o.log_format, "json");
    EXPECT_EQ(o.log_level, "debug");
    // Everything after -- belongs to the server, flags that look like ours included.
    EXPECT_EQ(o.command, (std::vector<std::string>{"npx", "-y", "pkg", "--port", "9"}));
}

TEST(ShimOptions, BadValuesSayWhatIsWrong) {
    EXPECT_NE(parse_error({"--", ""}).find("empty"), std::string::npos);
    EXPECT_NE(parse_error({"server"}).find("unknown option"), std::string::npos);
    EXPECT_NE(parse_error({}).find("no server command"), std::string::npos);
    EXPECT_NE(parse_error({"--port", "70000", "--", "s"}).find("--port"), std::string::npos);
    EXPECT_NE(parse_error({"--max-sessions", "0", "--", "s"}).find("at least 1"),
              std::string::npos);
    EXPECT_NE(parse_error({"--max-body-bytes", "x", "--", "s"}).find("--max-body-bytes"),
              std::string::npos);
    EXPECT_NE(parse_error({"--env-passthrough", "A,,B", "--", "s"}).find("variable names"),
              std::string::npos);
    EXPECT_NE(parse_error({"--env-passthrough", "A=1", "--", "s"}).find("\"A=1\""),
              std::string::npos);
    EXPECT_NE(parse_error({"--bearer-env", "1X", "--", "s"}).find("variable name"),
              std::string::npos);
    EXPECT_NE(parse_error({"--log-format", "xml", "--", "s"}).find("text or json"),
              std::string::npos);
    EXPECT_NE(parse_error({"--log-level", "trace", "--", "s"}).find("--log-level"),
              std::string::npos);
    EXPECT_NE(parse_error({"--port"}).find("needs a value"), std::string::npos);
}

TEST(ShimOptions, HelpAndVersionNeedNoCommand) {
    EXPECT_TRUE(parse_ok({"--help"}).help);
    EXPECT_TRUE(parse_ok({"--version"}).version);
}

TEST(ShimOptions, Loopback) {
    EXPECT_TRUE(is_loopback_host("127.0.0.1"));
    EXPECT_TRUE(is_loopback_host("127.1.2.3"));
    EXPECT_TRUE(is_loopback_host("::1"));
    EXPECT_TRUE(is_loopback_host("localhost"));
    EXPECT_FALSE(is_loopback_host("0.0.0.0"));
    EXPECT_FALSE(is_loopback_host("::"));
    EXPECT_FALSE(is_loopback_host("10.0.0.1"));
    EXPECT_FALSE(is_loopback_host("example.com"));
}
