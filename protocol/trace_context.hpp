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
    std::string header() const;
    bool sampled() const { return flags.size() == 2 && (flags[1] - '0') % 2 == 1; }
};

// nullopt for anything that is not a valid version-00 traceparent.
std::optional<trace_parent> parse_traceparent(std::string_view header);

// The context for an upstream call: the caller's trace id and flags (or a fresh sampled
// trace) with a new span id for the gateway's own span.
trace_parent child_of(const std::optional<trace_parent>& caller);
// The same as its traceparent header: child_of(caller).header().
std::string child_header(const std::optional<trace_parent>& caller);

// The context of a trace the gateway records: the caller's trace continues with the caller's
// sampling decision (parent-based); a trace gate roots itself is sampled when its id falls
// under `ratio` (the trace id's low 56 bits against ratio * 2^56, so every instance of a
// fleet decides the same for one trace id).
trace_parent sampled_child_of(const std::optional<trace_parent>& caller, double ratio);

// A fresh span id (16 lowercase hex digits, not all zero).
std::string new_span_id();

// `bytes` random bytes as lowercase hex, not all zero: ids that must be unique, not secret
// (trace and span ids; a decision hook question's Idempotency-Key). Never a session id or a
// token: those come from protocol/random_id.
std::string random_hex(std::size_t bytes);

} // namespace gate::protocol
