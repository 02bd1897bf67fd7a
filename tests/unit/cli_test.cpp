#include "gateway/program/cli.hpp"

#include <gtest/gtest.h>

using namespace gate;
using namespace gate::gateway::program;

TEST(cli, defaults) {
    auto o = std::get<options>(gate::gateway::program::parse_command_line({}));
    EXPECT_EQ(o.host, "127.0.0.1");
    EXPECT_EQ(o.port, gate::gateway::program::default_port);
    EXPECT_EQ(o.log_format, "text");
    EXPECT_EQ(o.log_level, "info");
}

TEST(cli, parses_every_option) {
    auto o = std::get<options>(gate::gateway::program::parse_command_line(
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
        auto r = gate::gateway::program::parse_command_line(args);
        ASSERT_TRUE(std::holds_alternative<gate::gateway::program::usage_error>(r)) << args[0];
        EXPECT_FALSE(std::get<gate::gateway::program::usage_error>(r).message.empty());
    }
}

TEST(cli, record_takes_a_path_and_a_size_cap) {
    auto off = std::get<options>(gate::gateway::program::parse_command_line({}));
    EXPECT_FALSE(off.record); // off by default
    auto o = std::get<options>(gate::gateway::program::parse_command_line(
        {"--record", "/var/lib/gate/t.jsonl", "--record-max-bytes", "65536"}));
    EXPECT_EQ(*o.record, "/var/lib/gate/t.jsonl");
    EXPECT_EQ(o.record_max_bytes, 65536u);
    for (auto [args, why] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--record-max-bytes", "65536"}, "--record-max-bytes needs --record"},
             {{"--record", "t", "--record-max-bytes", "4095"},
              "--record-max-bytes must be an integer of at least 4096, got \"4095\""},
             {{"--record", ""}, "--record needs a file path"},
             {{"--record"}, "--record needs a value"}}) {
        auto r = gate::gateway::program::parse_command_line(args);
        ASSERT_TRUE(std::holds_alternative<gate::gateway::program::usage_error>(r)) << why;
        EXPECT_EQ(std::get<gate::gateway::program::usage_error>(r).message, why);
    }
}

TEST(cli, io_spin_is_off_by_default_and_bounded) {
    EXPECT_EQ(std::get<options>(gate::gateway::program::parse_command_line({})).io_spin_us, 0u);
    EXPECT_EQ(std::get<options>(gate::gateway::program::parse_command_line({"--io-spin-us", "50"}))
                  .io_spin_us,
              50u);
    EXPECT_EQ(
        std::get<options>(gate::gateway::program::parse_command_line({"--io-spin-us", "10000"}))
            .io_spin_us,
        10000u);
    for (auto [args, why] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--io-spin-us", "10001"}, "--io-spin-us must be at most 10000, got \"10001\""},
             {{"--io-spin-us", "-1"}, "--io-spin-us must be an integer of at least 0, got \"-1\""},
             {{"--io-spin-us", "fast"},
              "--io-spin-us must be an integer of at least 0, got \"fast\""},
             {{"--io-spin-us"}, "--io-spin-us needs a value"}}) {
        auto r = gate::gateway::program::parse_command_line(args);
        ASSERT_TRUE(std::holds_alternative<gate::gateway::program::usage_error>(r)) << why;
        EXPECT_EQ(std::get<gate::gateway::program::usage_error>(r).message, why);
    }
}

TEST(cli, io_threads_are_the_machines_by_default_and_bounded) {
    using gate::gateway::program::parse_command_line;
    EXPECT_EQ(std::get<options>(parse_command_line({})).io_threads, 0u) << "one per core";
    EXPECT_EQ(std::get<options>(parse_command_line({"--io-threads", "4"})).io_threads, 4u);
    EXPECT_EQ(std::get<options>(parse_command_line({"--io-threads", "256"})).io_threads, 256u);
    for (auto [args, why] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--io-threads", "257"}, "--io-threads must be at most 256, got \"257\""},
             {{"--io-threads", "0"}, "--io-threads must be an integer of at least 1, got \"0\""},
             {{"--io-threads", "many"},
              "--io-threads must be an integer of at least 1, got \"many\""},
             {{"--io-threads"}, "--io-threads needs a value"}}) {
        auto r = parse_command_line(args);
        ASSERT_TRUE(std::holds_alternative<gate::gateway::program::usage_error>(r)) << why;
        EXPECT_EQ(std::get<gate::gateway::program::usage_error>(r).message, why);
    }
}
