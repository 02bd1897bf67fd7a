#include "protocol/otlp_json.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

namespace gate::protocol {

namespace {

std::string quoted(std::string_view s) {
    return boost::json::serialize(boost::json::string(s));
}

std::string nanos(std::chrono::system_clock::time_point t) {
    return std::to_string(
        std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

std::string string_attribute(std::string_view key, std::string_view value) {
    return "{\"key\":" + quoted(key) + ",\"value\":{\"stringValue\":" + quoted(value) + "}}";
}

} // namespace

std::string otlp_span_json(const span& s) {
    std::string out = "{\"traceId\":\"" + s.trace_id + "\",\"spanId\":\"" + s.span_id + "\"";
    if (!s.parent_span_id.empty())
        out += ",\"parentSpanId\":\"" + s.parent_span_id + "\"";
    out += ",\"name\":" + quoted(s.name);
    // SPAN_KIND_SERVER = 2, SPAN_KIND_CLIENT = 3
    out += ",\"kind\":" + std::string(s.what == span::kind::server ? "2" : "3");
    out += ",\"startTimeUnixNano\":\"" + nanos(s.start) + "\"";
    out += ",\"endTimeUnixNano\":\"" + nanos(s.end) + "\"";
    out += ",\"attributes\":[";
    for (std::size_t i = 0; i < s.attributes.size(); ++i) {
        if (i > 0)
            out += ',';
        out += string_attribute(s.attributes[i].first, s.attributes[i].second);
    }
    out += "]";
    // STATUS_CODE_ERROR = 2; an unset status is left out
    if (s.error)
        out += ",\"status\":{\"code\":2,\"message\":" + quoted(s.status_message) + "}";
    out += "}";
    return out;
}

otlp_envelope otlp_export_envelope(std::string_view service_name, std::string_view version) {
    return {"{\"resourceSpans\":[{\"resource\":{\"attributes\":[" +
                string_attribute("service.name", service_name) + "," +
                string_attribute("service.version", version) +
                "]},\"scopeSpans\":[{\"scope\":{\"name\":\"gate\",\"version\":" + quoted(version) +
                "},\"spans\":",
            "}]}]}"};
}

} // namespace gate::protocol
