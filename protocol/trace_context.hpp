// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` the gateway
// sends upstream continues the caller's trace when it sent one, else starts a new one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gate::protocol {

struct trace_parent {
    std::string trace_id; // 32 lowercase hex digits, not all zero
    std::string span_id;  // 16 lowercase hex digits, not all zero
    std::string flags;    // 2 hex digits
    std::string header() const { return "00-" + trace_id + "-" + span_id + "-" + flags; }
};

// nullopt for anything that is not a valid version-00 traceparent.
std::optional<trace_parent> parse_traceparent(std::string_view header);

// The context for an upstream call: the caller's trace id and flags (or a fresh sampled
// trace) with a new span id for the gateway's own span.
trace_parent child_of(const std::optional<trace_parent>& caller);

} // namespace gate::protocol
