#include "gateway/pipeline/chain.hpp"

#include "gateway/pipeline/answers.hpp"
#include "protocol/json_rpc.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace gate::gateway::pipeline {

chain::chain(std::array<std::unique_ptr<stage>, 8> stages, std::unique_ptr<exit_stage> exit,
             entry_steps entry)
    : stages_(std::move(stages)), exit_(std::move(exit)), entry_(std::move(entry)) {
    for (std::size_t i = 0; i < stages_.size(); ++i)
        if (!stages_[i] || stages_[i]->id() != pipeline_order[i])
            throw std::logic_error("pipeline stage " + std::to_string(i + 1) + " must be " +
                                   std::string(stage_name(pipeline_order[i])));
    if (!exit_)
        throw std::logic_error("the pipeline needs its exit stage");
    if (!entry_.read || !entry_.trace || !entry_.session || !entry_.envelope)
        throw std::logic_error(
            "the pipeline's entry needs its read, trace, session and envelope steps");
}

namespace {

int position(gateway::stage s) {
    return static_cast<int>(s);
}

// A stage that throws has answered with an internal error.
void failed(request_context& ctx, std::string why) {
    // The answer says only that gate failed; the audit keeps why.
    refuse(ctx, gateway_error::internal_error, {"a stage failed"});
    ctx.audit.error = std::move(why);
}

} // namespace

step chain::enter(request_context& ctx, arrival& a) {
    return enter_at(ctx, a, link::authenticate);
}

// next and run_link are inlined into enter_at's loop: every request takes five links, and the
// calls cost about 150 instructions per request (simulations/bench_instructions.sh).
[[gnu::always_inline]] inline chain::link chain::next(link l, const arrival& a) {
    switch (l) {
    case link::authenticate:
        if (a.kind == door::message)
            return link::read;
        return a.kind == door::view ? link::global_limit : link::done;
    case link::read:
        return a.is_request() ? link::global_limit : link::trace;
    case link::global_limit:
        return a.kind == door::message ? link::trace : link::done;
    case link::trace:
        if (a.sessionful())
            return link::session;
        return a.modern && a.is_request() ? link::envelope : link::done;
    case link::session:
    case link::envelope:
    case link::done:
        break;
    }
    return link::done;
}

// As in advance: links decided at once run in this loop, and the first that must wait takes
// the rest of the entry into a coroutine (enter_later), so an entry decided at once makes none.
step chain::enter_at(request_context& ctx, arrival& a, link l) {
    for (; l != link::done; l = next(l, a)) {
        auto s = run_link(ctx, a, l);
        if (!s.ready())
            return enter_later(ctx, a, s.take(), l);
        if (s.value() == verdict::answered) {
            conclude(ctx);
            return verdict::answered;
        }
    }
    if (a.kind != door::message)
        pass(ctx); // what follows is not an MCP request (pass)
    return verdict::proceed;
}

[[gnu::always_inline]] inline step chain::run_link(request_context& ctx, arrival& a, link l) {
    if (l == link::authenticate || l == link::global_limit) {
        auto id =
            l == link::authenticate ? gateway::stage::authenticate : gateway::stage::global_limit;
        return advance(ctx, static_cast<std::size_t>(position(id)), id);
    }
    auto& s = l == link::read      ? *entry_.read
              : l == link::trace   ? *entry_.trace
              : l == link::session ? *entry_.session
                                   : *entry_.envelope;
    try {
        return s.run(ctx, a);
    } catch (const std::exception& e) {
        failed(ctx, e.what());
    } catch (...) {
        failed(ctx, "internal error");
    }
    return verdict::answered;
}

boost::asio::awaitable<verdict> chain::enter_later(request_context& ctx, arrival& a,
                                                   boost::asio::awaitable<verdict> waiting,
                                                   link l) {
    verdict v = verdict::answered;
    try {
        v = co_await std::move(waiting);
    } catch (const std::exception& e) {
        failed(ctx, e.what());
    } catch (...) {
        failed(ctx, "internal error");
    }
    if (v == verdict::answered) {
        conclude(ctx);
        co_return verdict::answered;
    }
    auto rest = enter_at(ctx, a, next(l, a));
    co_return rest.ready() ? rest.value() : co_await rest.take();
}

std::size_t chain::first_at(gateway::stage from) const {
    std::size_t first = 0;
    while (first < stages_.size() && position(stages_[first]->id()) < position(from))
        ++first;
    return first;
}

step chain::run(request_context& ctx, gateway::stage from, gateway::stage to) {
    return advance(ctx, first_at(from), to);
}

step chain::run_pausing(request_context& ctx, gateway::stage from, gateway::stage to) {
    return advance(ctx, first_at(from), to, true);
}

step chain::resume(request_context& ctx, std::optional<verdict> decided, std::string_view failure) {
    // A resume without a pause would run the stages again from the second: a programming
    // error, refused before any stage runs.
    auto at = std::exchange(ctx.passage.paused_at, std::nullopt);
    if (!at)
        throw std::logic_error("chain::resume without a paused run");
    return after_wait(ctx, decided, failure, *at, ctx.passage.paused_to, true);
}

// Stages decided at once run in this loop; the first that must wait takes the rest of the
// chain into a coroutine (finish), so a request whose stages all decide at once makes none;
// or, pausing, is handed back as it is.
step chain::advance(request_context& ctx, std::size_t i, gateway::stage to, bool pausing) {
    for (; i < stages_.size() && position(stages_[i]->id()) <= position(to); ++i) {
        ctx.passage.trace.record(stages_[i]->id());
        std::optional<step> s;
        try {
            s.emplace(stages_[i]->run(ctx));
        } catch (const std::exception& e) {
            failed(ctx, e.what());
        } catch (...) {
            failed(ctx, "internal error");
        }
        if (s && !s->ready()) {
            if (!pausing)
                return finish(ctx, s->take(), i, to);
            ctx.passage.paused_at = i;
            ctx.passage.paused_to = to;
            return std::move(*s);
        }
        if (!s || s->value() == verdict::answered) {
            conclude(ctx);
            return verdict::answered;
        }
    }
    if (to != gateway::stage::egress)
        return verdict::proceed;
    conclude(ctx);
    return verdict::answered;
}

step chain::after_wait(request_context& ctx, std::optional<verdict> decided,
                       std::string_view failure, std::size_t i, gateway::stage to, bool pausing) {
    if (!decided)
        failed(ctx, std::string(failure));
    if (!decided || *decided == verdict::answered) {
        conclude(ctx);
        return verdict::answered;
    }
    return advance(ctx, i + 1, to, pausing);
}

boost::asio::awaitable<verdict> chain::finish(request_context& ctx,
                                              boost::asio::awaitable<verdict> waiting,
                                              std::size_t i, gateway::stage to) {
    std::optional<verdict> decided;
    std::string failure;
    try {
        decided = co_await std::move(waiting);
    } catch (const std::exception& e) {
        failure = e.what();
    } catch (...) {
        failure = "internal error";
    }
    auto rest = after_wait(ctx, decided, failure, i, to, false);
    co_return rest.ready() ? rest.value() : co_await rest.take();
}

void chain::conclude(request_context& ctx) {
    if (ctx.passage.audited)
        return;
    ctx.passage.audited = true;
    ctx.passage.trace.record(gateway::stage::audit);
    exit_->exit(ctx);
}

} // namespace gate::gateway::pipeline
