#include "transport/pipeline/chain.hpp"

#include "protocol/json_rpc.hpp"

#include <stdexcept>
#include <string>

namespace gate::transport::pipeline {

chain::chain(std::array<std::unique_ptr<stage>, 8> stages, std::unique_ptr<exit_stage> exit)
    : stages_(std::move(stages)), exit_(std::move(exit)) {
    for (std::size_t i = 0; i < stages_.size(); ++i)
        if (!stages_[i] || stages_[i]->id() != pipeline_order[i])
            throw std::logic_error("pipeline stage " + std::to_string(i + 1) + " must be " +
                                   std::string(stage_name(pipeline_order[i])));
    if (!exit_)
        throw std::logic_error("the pipeline needs its exit stage");
}

boost::asio::awaitable<verdict> chain::run(request_context& ctx, transport::stage from,
                                           transport::stage to) {
    auto position = [](transport::stage s) { return static_cast<int>(s); };
    for (auto& s : stages_) {
        if (position(s->id()) < position(from))
            continue;
        if (position(s->id()) > position(to))
            break;
        ctx.trace.record(s->id());
        verdict v = verdict::answered;
        try {
            v = co_await s->run(ctx);
        } catch (const std::exception& e) {
            ctx.outcome = protocol::outcome::error;
            ctx.error = e.what();
            ctx.response = protocol::make_error(ctx.id, protocol::error_code::internal_error,
                                                "internal error");
            ctx.verbatim.clear();
        } catch (...) {
            ctx.outcome = protocol::outcome::error;
            ctx.error = "internal error";
            ctx.response = protocol::make_error(ctx.id, protocol::error_code::internal_error,
                                                "internal error");
            ctx.verbatim.clear();
        }
        if (v == verdict::answered) {
            conclude(ctx);
            co_return verdict::answered;
        }
    }
    if (to != transport::stage::egress)
        co_return verdict::proceed;
    conclude(ctx);
    co_return verdict::answered;
}

void chain::conclude(request_context& ctx) {
    if (ctx.audited)
        return;
    ctx.audited = true;
    ctx.trace.record(transport::stage::audit);
    exit_->exit(ctx);
}

} // namespace gate::transport::pipeline
