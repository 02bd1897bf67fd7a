#include "process/cli_values.hpp"

#include <charconv>

namespace gate::process {

std::optional<std::string> parse_port(const std::string& flag, const std::string& text,
                                      std::uint16_t& out) {
    unsigned port = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (ec != std::errc{} || p != text.data() + text.size() || port > 65535)
        return flag + " must be an integer from 0 to 65535, got \"" + text + "\"";
    out = static_cast<std::uint16_t>(port);
    return std::nullopt;
}

std::optional<std::string> parse_count(const std::string& flag, const std::string& text,
                                       std::uint64_t min, std::uint64_t& out) {
    std::uint64_t n = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc{} || p != text.data() + text.size() || n < min)
        return flag + " must be an integer of at least " + std::to_string(min) + ", got \"" + text +
               "\"";
    out = n;
    return std::nullopt;
}

std::optional<std::string> check_log_format(const std::string& value) {
    if (value != "text" && value != "json")
        return "--log-format must be text or json, got \"" + value + "\"";
    return std::nullopt;
}

std::optional<std::string> check_log_level(const std::string& value) {
    if (value != "debug" && value != "info" && value != "warn" && value != "error")
        return "--log-level must be debug, info, warn or error, got \"" + value + "\"";
    return std::nullopt;
}

} // namespace gate::process
