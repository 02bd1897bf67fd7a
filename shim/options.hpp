// gate-stdio's command line (spec: "Shim (gate-stdio) options"). The server command comes
// only from here, after a literal `--`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::shim {

struct options {
    std::uint16_t port = 8091;
    std::string host = "127.0.0.1";
    std::size_t max_sessions = 64;
    std::size_t max_body_bytes = 1048576;
    std::vector<std::string> env_passthrough;
    std::optional<std::string> dir;
    std::optional<std::string> bearer_env;
    bool probe = false;
    std::string log_format = "text";
    std::string log_level = "info";
    bool help = false;
    bool version = false;
    std::vector<std::string> command; // argv of the server: program first
};

struct usage_error {
    std::string message;
};

std::variant<options, usage_error> parse_command_line(const std::vector<std::string>& args);
std::string usage_text();

// Whether binding `host` keeps the listener on this machine (127.0.0.0/8, ::1, localhost).
bool is_loopback_host(const std::string& host);

} // namespace gate::shim
