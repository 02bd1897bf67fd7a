// The header values gate parses from any caller: `traceparent`, `Host` and the 2026-07-28
// encoded header values (`=?base64?...?=`). Each parse either refuses or gives a value that
// survives its own round trip.
#include "protocol/modern_request.hpp"
#include "protocol/trace_context.hpp"
#include "transport/http/host_guard.hpp"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto tp = gate::protocol::parse_traceparent(text)) {
        auto again = gate::protocol::parse_traceparent(tp->header());
        if (!again || again->trace_id != tp->trace_id || again->span_id != tp->span_id ||
            again->flags != tp->flags)
            std::abort();
        if (gate::protocol::child_of(tp).trace_id != tp->trace_id)
            std::abort();
        auto child = gate::protocol::parse_traceparent(gate::protocol::child_header(tp));
        if (!child || child->trace_id != tp->trace_id || child->flags != tp->flags)
            std::abort();
    }
    (void)gate::transport::hostname_of(text);
    if (auto decoded = gate::protocol::decode_header_value(text)) {
        auto encoded = gate::protocol::encode_header_value(*decoded);
        auto back = gate::protocol::decode_header_value(encoded);
        if (!back || *back != *decoded)
            std::abort();
    }
    return 0;
}
