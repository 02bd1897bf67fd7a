// Spans in the OTLP/HTTP JSON encoding (opentelemetry-proto's JSON mapping: ids as hex,
// enums as integers, 64-bit times as decimal strings). An export is an envelope around a JSON
// array of spans, so a batch of spans serialized one by one becomes one request.
#pragma once

#include "protocol/span.hpp"

#include <string>
#include <string_view>

namespace gate::protocol {

// One span object of `scopeSpans[].spans`.
std::string otlp_span_json(const span& s);

// What goes before and after a JSON array of spans to make an ExportTraceServiceRequest of
// one resource (`service.name`, `service.version`) and one scope (`gate`).
struct otlp_envelope {
    std::string head, tail;
};
otlp_envelope otlp_export_envelope(std::string_view service_name, std::string_view version);

} // namespace gate::protocol
