#include "gateway/pipeline/request_tracing.hpp"

#include "protocol/otlp_json.hpp"
#include "protocol/trace_context.hpp"

namespace gate::gateway {

void start_trace(request_context& rec, std::string_view caller_traceparent,
                 const std::optional<config::tracing>& tracing) {
    auto caller = protocol::parse_traceparent(caller_traceparent);
    if (!tracing) {
        rec.tracing.traceparent = protocol::child_header(caller);
        return;
    }
    auto mine = protocol::sampled_child_of(caller, tracing->sample_ratio);
    rec.tracing.traceparent = mine.header();
    if (mine.sampled())
        rec.tracing.spans = request_context::trace_record{mine.trace_id,
                                                          mine.span_id,
                                                          caller ? caller->span_id : std::string(),
                                                          std::chrono::system_clock::now(),
                                                          {}};
}

upstream_span open_upstream_span(const request_context& rec, std::string_view upstream) {
    if (!rec.tracing.spans)
        return {}; // the call sends the request's own traceparent
    protocol::span s;
    s.trace_id = rec.tracing.spans->trace_id;
    s.span_id = protocol::new_span_id();
    s.parent_span_id = rec.tracing.spans->span_id;
    s.name = "upstream " + std::string(upstream);
    s.what = protocol::span::kind::client;
    s.start = std::chrono::system_clock::now();
    s.attributes.emplace_back("gate.upstream", std::string(upstream));
    auto header = protocol::trace_parent{s.trace_id, s.span_id, "01"}.header();
    return {std::move(header), std::move(s)};
}

void close_upstream_span(request_context& rec, upstream_span& call, std::string_view outcome) {
    if (!call.span || !rec.tracing.spans)
        return;
    auto& s = *call.span;
    s.end = std::chrono::system_clock::now();
    // The guard outcomes the spec names: ok, rate-limited, circuit open, error.
    std::string o(outcome == "connect_error" ? "error" : outcome);
    s.attributes.emplace_back("gate.outcome", o);
    if (o != "ok") {
        s.error = true;
        s.status_message = o;
    }
    rec.tracing.spans->calls.push_back(std::move(s));
    call.span.reset();
}

std::vector<std::string> finish_trace(request_context& rec) {
    if (!rec.tracing.spans)
        return {};
    auto& t = *rec.tracing.spans;
    protocol::span s;
    s.trace_id = t.trace_id;
    s.span_id = t.span_id;
    s.parent_span_id = t.parent_span_id;
    s.name = rec.method.empty() ? "http" : rec.method;
    s.what = protocol::span::kind::server;
    s.start = t.start;
    s.end = std::chrono::system_clock::now();
    auto add = [&](const char* key, const std::optional<std::string>& v) {
        if (v)
            s.attributes.emplace_back(key, *v);
    };
    s.attributes.emplace_back("mcp.method", s.name);
    add("mcp.name", rec.name);
    add("gate.upstream", rec.upstream);
    s.attributes.emplace_back("gate.outcome", std::string(protocol::name(rec.audit.outcome)));
    add("gate.policy.decision", rec.policy.decision);
    add("gate.policy.rule", rec.policy.rule_id);
    if (rec.who.caller)
        s.attributes.emplace_back("enduser.id", rec.who.caller->subject);
    if (rec.audit.outcome != protocol::outcome::ok) {
        s.error = true;
        s.status_message = rec.audit.error.value_or(std::string(protocol::name(rec.audit.outcome)));
    }
    std::vector<std::string> out;
    out.reserve(1 + t.calls.size());
    out.push_back(protocol::otlp_span_json(s));
    for (const auto& c : t.calls)
        out.push_back(protocol::otlp_span_json(c));
    rec.tracing.spans.reset();
    return out;
}

} // namespace gate::gateway
