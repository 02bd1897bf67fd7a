// The JSON body of a delivery (docs/webhooks.md, "What a receiver gets"). The body carries
// its own id and time, so the signature over the body covers them too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gate::hooks {

struct delivery_envelope {
    std::string delivery_id; // dlv_<id>: one per (event, webhook), the same on every retry
    std::string event_id;    // evt_<id>: the same for every webhook the event reaches
    std::string type;        // deploy.success, ...
    std::string time;        // RFC 3339, UTC, when the event was ingested
    std::string organization;
    std::string data; // the event's data, JSON text as ingested
};

std::string delivery_body(const delivery_envelope& e);

// The headers of an attempt: the delivery id (a receiver's deduplication key), the event
// type, the attempt's Unix time, and with a secret the signature over the exact body.
std::vector<std::pair<std::string, std::string>>
delivery_headers(const delivery_envelope& e, const std::string& body,
                 const std::optional<std::string>& secret, std::int64_t unix_seconds);

} // namespace gate::hooks
