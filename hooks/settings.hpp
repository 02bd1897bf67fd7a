// gate-hooks' configuration: one JSON document (docs/webhooks.md, "Running it"), checked
// whole at start; every refusal names the member.
#pragma once

#include "hooks/retry_policy.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::hooks {

struct api_token {
    std::string organization;
    std::string token;
};

struct delivery_settings {
    std::chrono::milliseconds timeout{10000};
    retry_policy retry;
    std::size_t concurrency = 64;              // attempts in flight at once
    std::size_t connections_per_receiver = 32; // exchanges with one host:port at once
    std::chrono::milliseconds poll{500};       // how often due retries are looked for
    std::chrono::milliseconds lease{60000};    // an attempt's claim; a crashed one is retried after
    bool allow_private_targets = false;
    std::optional<std::string> ca_file; // else the system's trust store
};

// How long finished deliveries are kept (docs/webhooks.md, "Retention"; hooks/retention.hpp).
struct retention_settings {
    int days = 30; // after a delivery's last attempt (delivered, or dead and not retried)
    std::chrono::milliseconds sweep_interval{600000}; // how often a sweep looks for them
};

struct settings {
    std::string host = "127.0.0.1";
    std::uint16_t port = 8090;
    std::string database = "gate-hooks.db"; // a SQLite file
    std::vector<api_token> tokens;
    delivery_settings delivery;
    retention_settings retention;
    std::size_t max_body_bytes = 64 * 1024;
};

// The document's text; the error names the member ("/delivery/timeoutMs: must be ...").
std::variant<settings, std::string> parse_settings(std::string_view text);

} // namespace gate::hooks
