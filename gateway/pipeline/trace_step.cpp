// The entry's trace step: the request's trace starts once the limit admitted it (a refusal
// before, a 401 or a 429, records no span), from the caller's traceparent (its message's
// `_meta`, else its header) and the tracing
// section of the snapshot the request loaded (gateway/pipeline/request_tracing).
#include "gateway/pipeline/entry_steps.hpp"
#include "gateway/pipeline/request_tracing.hpp"
#include "protocol/trace_context.hpp"

namespace gate::gateway::pipeline {

namespace {

// The caller's trace context: the message's own (`params._meta.traceparent`, the MCP
// convention, SEP-414) when it carries a valid one, else the HTTP header's. An HTTP client's
// instrumentation writes the header for its own request; the message's is what the MCP
// caller meant.
std::string_view caller_traceparent(const arrival& a) {
    const auto* params = a.msg ? a.msg->params() : nullptr;
    auto* meta = params ? params->if_contains("_meta") : nullptr;
    auto* m = meta ? meta->if_object() : nullptr;
    auto* t = m ? m->if_contains("traceparent") : nullptr;
    if (t && t->is_string() && protocol::parse_traceparent(t->get_string()))
        return t->get_string();
    return header(a.req, "traceparent").value_or("");
}

class trace final : public entry_step {
public:
    step run(request_context& ctx, arrival& a) override {
        start_trace(ctx, caller_traceparent(a), ctx.view->snap->doc->tracing);
        return verdict::proceed;
    }
};

} // namespace

std::unique_ptr<entry_step> make_trace() {
    return std::make_unique<trace>();
}

} // namespace gate::gateway::pipeline
