// Command-line values both programs take (gate and gate-stdio): each check returns the
// message for a bad value, or nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gate::process {

std::optional<std::string> parse_port(const std::string& flag, const std::string& text,
                                      std::uint16_t& out);
// An integer from `min` up; the message names the flag and the value.
std::optional<std::string> parse_count(const std::string& flag, const std::string& text,
                                       std::uint64_t min, std::uint64_t& out);
std::optional<std::string> check_log_format(const std::string& value);
std::optional<std::string> check_log_level(const std::string& value);

} // namespace gate::process
