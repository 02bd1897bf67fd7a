// The pipeline's nine stages in the spec's order, with the single entry and the single exit:
// every request the stages see enters by enter, once, and whatever it meets (a stage or an
// entry step that answers early, one that throws, an answer made outside the stages), the
// audit stage runs exactly once for it. The chain, not each handler's discipline, makes that
// true: nothing else calls the audit stage.
#pragma once

#include "gateway/pipeline/entry.hpp"
#include "gateway/pipeline/request_exit.hpp"
#include "gateway/pipeline/stage.hpp"

#include <array>
#include <memory>

namespace gate::gateway::pipeline {

class chain final : public request_exit {
public:
    // Stages 1 to 8 in pipeline_order, then the exit, and the entry's steps; anything else
    // (a stage out of order, a step missing) is a programming error (std::logic_error at
    // construction, so it cannot reach a request).
    chain(std::array<std::unique_ptr<stage>, 8> stages, std::unique_ptr<exit_stage> exit,
          entry_steps entry);

    // The one door in: every request the stages see enters here, once (gateway::impl::respond).
    // By its door: a message runs stage 2, read, stage 3 (requests only: a notification or a
    // client's answer finishes work already admitted), trace and, within a session, session
    // (a 2026-07-28 request: envelope);
    // a session's stream or end runs stage 2; the federation view stages 2 and 3. A step or
    // stage that answers (or throws: an internal error) leaves by the exit, and the result is
    // `answered`; otherwise `proceed`, and the handler continues: a message from stage 4
    // (run(ctx, stage::route)) or with an answer of its own (conclude), the others with what
    // is not an MCP request (pass, done here).
    step enter(request_context& ctx, arrival& a);

    // Runs the stages from `from` to `to` until one answers. The exit follows when one
    // answered or when `to` is the last stage before it (egress); otherwise the request goes
    // on (the entry ran stages 2-3; a handler continues from 4 where the method has them).
    // A stage that throws has answered with an internal error (outcome `error`, its message
    // as the audit's error text). Stage 1, host and origin, runs at admission, before the
    // body is read.
    // A ready step when every stage run decided at once; otherwise the coroutine that
    // finishes the run, to be awaited.
    step run(request_context& ctx, gateway::stage from = gateway::stage::authenticate,
             gateway::stage to = gateway::stage::egress);
    // run for a caller that awaits a waiting stage itself, so the chain makes no frame of its
    // own around it (the call path's form): a step not ready is the waiting stage's own
    // coroutine, its place kept in ctx.passage; the caller awaits it and hands what became of
    // it to resume, until a step is ready.
    step run_pausing(request_context& ctx, gateway::stage from,
                     gateway::stage to = gateway::stage::egress);
    // The run after its paused stage: `decided` what the stage decided, or nullopt when it
    // threw (`failure`, its message).
    step resume(request_context& ctx, std::optional<verdict> decided, std::string_view failure);

    // The exit alone, for an answer made outside the stages: by a handler after the entry (a
    // notification passed on, a listen that ended), or before any request context (a refusal
    // at admission). Idempotent: a request leaves once.
    void conclude(request_context& ctx) override;
    // A GET stream, a DELETE or a federation view that passed the entry (enter passes them):
    // what follows is not an MCP request, and leaves no audit event or request metric (a
    // refusal before it, a 401 or 403, does: docs/architecture.md). Idempotent like conclude.
    void pass(request_context& ctx) { ctx.passage.audited = true; }

private:
    // The entry's links, in order; each door runs the ones it has (next).
    enum class link : std::uint8_t {
        authenticate,
        read,
        global_limit,
        trace,
        session,
        envelope,
        done
    };
    static link next(link l, const arrival& a);
    step enter_at(request_context& ctx, arrival& a, link l);
    step run_link(request_context& ctx, arrival& a, link l);
    boost::asio::awaitable<verdict> enter_later(request_context& ctx, arrival& a,
                                                boost::asio::awaitable<verdict> waiting, link l);

    std::size_t first_at(gateway::stage from) const; // the index of stage `from`
    // `pausing`: a waiting stage is handed back as it is (run_pausing), not finished here.
    step advance(request_context& ctx, std::size_t i, gateway::stage to, bool pausing = false);
    // After stage i waited: `decided`, or nullopt when it threw `failure`.
    step after_wait(request_context& ctx, std::optional<verdict> decided, std::string_view failure,
                    std::size_t i, gateway::stage to, bool pausing);
    boost::asio::awaitable<verdict> finish(request_context& ctx,
                                           boost::asio::awaitable<verdict> waiting, std::size_t i,
                                           gateway::stage to);

    std::array<std::unique_ptr<stage>, 8> stages_;
    std::unique_ptr<exit_stage> exit_;
    entry_steps entry_;
};

} // namespace gate::gateway::pipeline
