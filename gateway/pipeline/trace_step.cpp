// The entry's trace step: the request's trace starts once the limit admitted it (a refusal
// before, a 401 or a 429, records no span), from the caller's traceparent and the tracing
// section of the snapshot the request loaded (gateway/operations/request_tracing).
#include "gateway/operations/request_tracing.hpp"
#include "gateway/pipeline/entry_steps.hpp"

namespace gate::transport::pipeline {

namespace {

class trace final : public entry_step {
public:
    step run(request_context& ctx, arrival& a) override {
        start_trace(ctx, header(a.req, "traceparent").value_or(""), ctx.view->snap->doc->tracing);
        return verdict::proceed;
    }
};

} // namespace

std::unique_ptr<entry_step> make_trace() {
    return std::make_unique<trace>();
}

} // namespace gate::transport::pipeline
