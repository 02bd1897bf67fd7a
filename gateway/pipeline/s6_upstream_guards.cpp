// Stage 6: the upstream guards. A tools/call is first counted in the windows of the upstream's
// tool limits that match its tool (s6_tool_limits.hpp): refused, -32040 naming the tool and the
// limit, and nothing further is taken (no slot of the upstream's window, no budget). Then the
// routed upstream admits the call through its breaker and
// its own rate limit (actors/guards/upstream_guard) before anything goes on the wire: refused, the
// client gets -32041 or -32040 (protocol/gateway_error). A list admits each upstream it
// fetches; a refused one is left out of the merged list. The admission travels to the proxy
// stage as a ticket that the call's outcome settles. Each admitted invocation is charged to
// the budgets it draws on (server, upstream, the caller's tenant): exhausted, -32044 naming
// the reset instant (for a list, an upstream's own budget leaves it out). Calls gate makes on
// its own while proxying (task probes, handshakes) are admitted by the upstream client itself
// and charged to no budget.
#include "gateway/pipeline/s6_upstream_guards.hpp"

#include "gateway/pipeline/client_answer.hpp"
#include "gateway/pipeline/request_tracing.hpp"

#include <spdlog/spdlog.h>

namespace gate::gateway::pipeline {

namespace {

class upstream_guards final : public stage {
public:
    explicit upstream_guards(upstream_guards_services s) : s_(s), tools_(s.tools, s.tool_leases) {}
    gateway::stage id() const override { return gateway::stage::upstream_guards; }
    step run(request_context& ctx) override {
        if (ctx.routed.target) {
            auto upstream = ctx.routed.target->upstream;
            if (held_through_listen(ctx, upstream)) {
                ctx.guards.through_listen = true;
                return verdict::proceed; // gate's own hold admits itself
            }
            if (auto windows = tools_.windows_of(ctx); !windows.empty()) {
                auto first = tools_.take_now(windows, std::chrono::steady_clock::now());
                if (first < windows.size())
                    return limit_tool(ctx, std::move(windows), first);
            }
            // Decided from the lease and the reserved budgets, nearly always; a new batch,
            // the half-open probe or a reservation is waited for.
            auto admitted = s_.upstreams.admit_now(ctx, upstream);
            if (!admitted)
                return admit_target(ctx);
            if (auto* refused = std::get_if<upstream_failure>(&*admitted))
                return refuse_target(ctx, upstream, *refused);
            auto& ticket = std::get<ticket_type>(*admitted);
            auto charged = s_.budgets.charge_now(ctx, upstream);
            if (!charged)
                return charge_target(ctx, std::move(ticket));
            return settle_target(ctx, std::move(ticket), charged->spent);
        }
        if (ctx.routed.plan)
            return admit_list(ctx);
        return verdict::proceed;
    }

private:
    using ticket_type = upstream_admission::ticket;

    static const std::string& id_of(const request_context& ctx, std::size_t upstream) {
        return ctx.view->snap->upstream(upstream).id;
    }

    // The tool limits' windows from `first` on, then the upstream's own admission.
    boost::asio::awaitable<verdict> limit_tool(request_context& ctx,
                                               std::vector<actors::tool_window_ref> windows,
                                               std::size_t first) {
        if (auto refused = co_await tools_.take(std::move(windows), first)) {
            auto upstream = ctx.routed.target->upstream;
            s_.stats.tool_limit_refused(id_of(ctx, upstream),
                                        refused->window.per_principal() ? "principal" : "everyone");
            upstream_failure counted;
            counted.what = upstream_failure::kind::rate_limited;
            refused_call(ctx, upstream, counted);
            ctx.answer.response = tool_limits::refuse(ctx, *refused);
            co_return verdict::answered;
        }
        co_return co_await admit_target(ctx);
    }

    boost::asio::awaitable<verdict> admit_target(request_context& ctx) {
        auto upstream = ctx.routed.target->upstream;
        auto admitted = co_await s_.upstreams.admit(ctx, upstream);
        if (auto* refused = std::get_if<upstream_failure>(&admitted))
            co_return refuse_target(ctx, upstream, *refused);
        auto spent = co_await s_.budgets.charge(ctx, upstream);
        co_return settle_target(ctx, std::move(std::get<ticket_type>(admitted)), spent);
    }

    boost::asio::awaitable<verdict> charge_target(request_context& ctx, ticket_type ticket) {
        auto spent = co_await s_.budgets.charge(ctx, ctx.routed.target->upstream);
        co_return settle_target(ctx, std::move(ticket), spent);
    }

    verdict refuse_target(request_context& ctx, std::size_t upstream,
                          const upstream_failure& refused) {
        refused_call(ctx, upstream, refused);
        ctx.answer.response = refuse_upstream(ctx, ctx.message.id, id_of(ctx, upstream), refused);
        return verdict::answered;
    }

    verdict settle_target(request_context& ctx, ticket_type ticket,
                          const std::optional<actors::budget_ledger::exhausted>& spent) {
        if (spent) {
            ctx.answer.response = budget_refusal(ctx, *spent); // the ticket is dropped unused
            return verdict::answered;
        }
        ctx.guards.admitted = std::make_shared<ticket_type>(std::move(ticket));
        return verdict::proceed;
    }

    boost::asio::awaitable<verdict> admit_list(request_context& ctx) {
        for (auto upstream : ctx.routed.plan->fetch) {
            auto admitted = co_await s_.upstreams.admit(ctx, upstream);
            if (auto* refused = std::get_if<upstream_failure>(&admitted)) {
                refused_call(ctx, upstream, *refused);
                spdlog::debug("upstream {} left out of {}: {}", id_of(ctx, upstream), ctx.method,
                              refused->message);
                ctx.guards.list_admitted.push_back(nullptr);
                continue;
            }
            if (auto spent = co_await s_.budgets.charge(ctx, upstream)) {
                // An upstream's own budget leaves it out; the server's or the tenant's
                // answers the whole list.
                if (!spent->key.starts_with("upstream ")) {
                    ctx.guards.list_admitted.clear();
                    ctx.answer.response = budget_refusal(ctx, *spent);
                    co_return verdict::answered;
                }
                spdlog::debug("upstream {} left out of {}: its budget is exhausted",
                              id_of(ctx, upstream), ctx.method);
                ctx.guards.list_admitted.push_back(nullptr);
                continue;
            }
            ctx.guards.list_admitted.push_back(
                std::make_shared<ticket_type>(std::move(std::get<ticket_type>(admitted))));
        }
        co_return verdict::proceed;
    }

    // A call the guards refused never left gate: counted, and a span of no duration.
    void refused_call(request_context& ctx, std::size_t upstream, const upstream_failure& refused) {
        const auto& id = id_of(ctx, upstream);
        auto outcome = protocol::describe(error_for(refused)).metric_label;
        s_.stats.upstream(id, outcome, 0);
        auto span = open_upstream_span(ctx, id);
        close_upstream_span(ctx, span, outcome);
    }

    // A resources/(un)subscribe at a 2026-07-28 upstream, which has no such method: gate
    // holds the URI in its own listen there.
    bool held_through_listen(const request_context& ctx, std::size_t upstream) const {
        return (ctx.method == "resources/subscribe" || ctx.method == "resources/unsubscribe") &&
               s_.upstreams.modern(ctx, upstream);
    }

    upstream_guards_services s_;
    tool_limits tools_;
};

} // namespace

std::unique_ptr<stage> make_upstream_guards(upstream_guards_services services) {
    return std::make_unique<upstream_guards>(services);
}

} // namespace gate::gateway::pipeline
