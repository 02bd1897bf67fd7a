// gate's command line (spec: "Configuration document", other command-line options).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::gateway::program {

// 8090: next to the shim's 8091, clear of the common 8080 (docs/configuration.md).
inline constexpr std::uint16_t default_port = 8090;

// 256 MiB a file, two files at most: an hour of a busy gateway's traffic, bounded.
inline constexpr std::uint64_t default_record_max_bytes = 256ull << 20;

// Beyond 10 ms the io thread would simply never sleep under any load worth a spin.
inline constexpr std::uint32_t max_io_spin_us = 10000;

// More io threads than this is a typo, not a machine.
inline constexpr std::size_t max_io_threads = 256;

struct options {
    std::optional<std::string> config; // --config, else GATE_CONFIG
    bool validate = false;
    bool schema = false;
    bool watch = false;
    bool help = false;
    bool version = false;
    std::string host = "127.0.0.1";
    std::uint16_t port = default_port;
    std::string log_format = "text"; // text | json
    std::string log_level = "info";  // debug | info | warn | error
    // --record: the traffic gate carries, as JSON lines (docs/recording.md); the file rotates
    // to FILE.1 when the next line would take it past record_max_bytes.
    std::optional<std::string> record;
    std::uint64_t record_max_bytes = default_record_max_bytes;
    // --io-spin-us: how long the io thread polls for more work before it sleeps (io_loop.hpp).
    std::uint32_t io_spin_us = 0;
    // --io-threads: how many io threads answer requests (docs/io-threads.md); 0 when not
    // given: one per core (default_io_threads.hpp).
    std::size_t io_threads = 0;
};

struct usage_error {
    std::string message;
};

std::variant<options, usage_error> parse_command_line(const std::vector<std::string>& args);
std::string usage_text();

} // namespace gate::gateway::program
