// Stage 1: the Host/Origin allowlist (DNS-rebinding protection). It runs at admission, on the
// request header alone, for every endpoint (http_face::admit), so a forbidden caller's body
// is never read; a chain run from stage 1 applies the same check to the context. Both read
// the allowlist of the federation's view (server.allowedHosts as last loaded).
#include "gateway/pipeline/s1_host_origin.hpp"

#include "gateway/pipeline/answers.hpp"

namespace gate::gateway::pipeline {

std::optional<protocol::gateway_error> check_host_origin(const transport::host_guard& guard,
                                                         std::optional<std::string_view> host,
                                                         std::optional<std::string_view> origin) {
    auto verdict = guard.check(host, origin);
    if (verdict == transport::host_verdict::allowed)
        return std::nullopt;
    return verdict == transport::host_verdict::forbidden_host ? gateway_error::forbidden_host
                                                              : gateway_error::forbidden_origin;
}

transport::http_reply forbidden_reply(protocol::gateway_error refused) {
    auto reply = error_reply({refused, protocol::gateway_error_text(refused)});
    reply.close = true;
    return reply;
}

namespace {

class host_origin final : public stage {
public:
    host_origin() = default;
    gateway::stage id() const override { return gateway::stage::host_origin; }
    step run(request_context& ctx) override {
        auto refused = check_host_origin(ctx.view->guard, ctx.admission.host, ctx.admission.origin);
        if (!refused)
            return verdict::proceed;
        refuse(ctx, *refused);
        ctx.answer.refusal_reply->close = true;
        return verdict::answered;
    }
};

} // namespace

std::unique_ptr<stage> make_host_origin() {
    return std::make_unique<host_origin>();
}

} // namespace gate::gateway::pipeline
