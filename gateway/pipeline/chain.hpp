// The pipeline's nine stages in the spec's order, and the single exit: whatever a request
// meets (a stage that answers early, a stage that throws, an answer made outside the stages),
// the audit stage runs exactly once for it. The chain, not each handler's discipline, makes
// that true: nothing else calls the audit stage.
#pragma once

#include "gateway/pipeline/stage.hpp"

#include <array>
#include <memory>

namespace gate::transport::pipeline {

class chain {
public:
    // Stages 1 to 8 in pipeline_order, then the exit; anything else is a programming error
    // (std::logic_error at construction, so it cannot reach a request).
    chain(std::array<std::unique_ptr<stage>, 8> stages, std::unique_ptr<exit_stage> exit);

    // Runs the stages from `from` to `to` until one answers. The exit follows when one
    // answered or when `to` is the last stage before it (egress); otherwise the request goes
    // on (the gateway runs stages 2-3 for every request, then 4-8 where the method has them).
    // A stage that throws has answered with an internal error (outcome `error`, its message
    // as the audit's error text). Stage 1, host and origin, runs at admission, before the
    // body is read.
    // A ready step when every stage run decided at once; otherwise the coroutine that
    // finishes the run, to be awaited.
    step run(request_context& ctx, transport::stage from = transport::stage::authenticate,
             transport::stage to = transport::stage::egress);

    // The exit alone, for an answer made outside the stages (a request refused before it
    // could be read as MCP, a notification passed on). Idempotent: a request leaves once.
    void conclude(request_context& ctx);
    // A GET stream or a DELETE that passed authentication: what follows is the session's
    // transport, not an MCP request, and leaves no audit event or request metric (a refusal
    // before it, a 401 or 403, does: docs/architecture.md). Idempotent like conclude.
    void pass(request_context& ctx) { ctx.audited = true; }

private:
    step advance(request_context& ctx, std::size_t i, transport::stage to);
    boost::asio::awaitable<verdict> finish(request_context& ctx,
                                           boost::asio::awaitable<verdict> waiting, std::size_t i,
                                           transport::stage to);

    std::array<std::unique_ptr<stage>, 8> stages_;
    std::unique_ptr<exit_stage> exit_;
};

} // namespace gate::transport::pipeline
