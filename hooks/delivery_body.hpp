// The JSON body of a delivery (docs/webhooks.md, "What a receiver gets"). The body carries
// its own id and time, so the signature over the body covers them too.
#pragma once

#include <string>
#include <string_view>

namespace gate::hooks {

struct delivery_envelope {
    std::string event_id; // evt_<id>: the same for every webhook the event reaches
    std::string type;     // deploy.success, ...
    std::string time;     // RFC 3339, UTC, when the event was ingested
    std::string organization;
    std::string data; // the event's data, JSON text as ingested
};

std::string delivery_body(const delivery_envelope& e);

} // namespace gate::hooks
