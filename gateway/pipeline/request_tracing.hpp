// Traces (spec: Traces): W3C trace context always propagates upstream; with a tracing section,
// a sampled request records one server span named by its method and one client span per
// upstream call, named `upstream <id>` and closed with the guard outcome. Attributes follow
// the spec with `gate` where the product name stands (docs/operations.md, Traces):
// mcp.method, mcp.name, gate.upstream, gate.outcome, gate.policy.decision, gate.policy.rule,
// enduser.id.
#pragma once

#include "gateway/pipeline/request_context.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gate::gateway {

// At admission: the traceparent upstream calls continue (the caller's trace, or a new one),
// and with `tracing` a record of the request's spans when the trace is sampled (parent-based,
// else `sampleRatio`).
void start_trace(request_context& rec, std::string_view caller_traceparent,
                 const std::optional<config::tracing>& tracing);

// One upstream call: the traceparent it sends (its client span's, when recording; empty: the
// request's own).
struct upstream_span {
    std::string traceparent;
    std::optional<protocol::span> span;
};
upstream_span open_upstream_span(const request_context& rec, std::string_view upstream);
// Closes the call's span with its guard outcome (the gate_upstream_requests_total label).
void close_upstream_span(request_context& rec, upstream_span& call, std::string_view outcome);

// At the terminal answer: the request's spans as OTLP JSON (server span first); empty when the
// request is not recorded.
std::vector<std::string> finish_trace(request_context& rec);

} // namespace gate::gateway
