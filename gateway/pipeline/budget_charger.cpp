#include "gateway/pipeline/budget_charger.hpp"

#include "gateway/pipeline/answers.hpp"
#include "protocol/utc_timestamp.hpp"

#include <chrono>
#include <span>

namespace gate::gateway {

std::size_t budget_charger::accounts_of(const request_context& ctx, std::size_t upstream,
                                        accounts& refs) {
    const auto& snap = *ctx.view->snap;
    std::size_t n = 0;
    if (const auto& b = snap.doc->server.budget)
        refs[n++] = {"server", &*b};
    if (const auto& b = snap.upstream(upstream).budget)
        refs[n++] = {"upstream " + snap.upstream(upstream).id, &*b};
    if (ctx.who.tenant_index)
        if (const auto& b = snap.tenants->tenant(*ctx.who.tenant_index).budget)
            refs[n++] = {"tenant " + *ctx.who.tenant, &*b};
    return n;
}

std::optional<budget_charger::charged_now> budget_charger::charge_now(const request_context& ctx,
                                                                      std::size_t upstream) {
    accounts refs;
    auto n = accounts_of(ctx, upstream, refs);
    if (n == 0)
        return charged_now{};
    auto drawn = std::span(refs.data(), n);
    auto now = std::chrono::system_clock::now();
    if (!ledger_.unreserved(drawn, now).empty())
        return std::nullopt;
    return charged_now{ledger_.charge_reserved(drawn, now)};
}

boost::asio::awaitable<std::optional<actors::budget_ledger::exhausted>>
budget_charger::charge(const request_context& ctx, std::size_t upstream) {
    accounts refs;
    auto n = accounts_of(ctx, upstream, refs);
    if (n == 0)
        co_return std::nullopt;
    auto drawn = std::span(refs.data(), n);
    // Calls that arrive while one is being reserved look again.
    for (int round = 0; round < 16; ++round) {
        auto now = std::chrono::system_clock::now();
        auto missing = ledger_.unreserved(drawn, now);
        if (missing.empty())
            co_return ledger_.charge_reserved(drawn, now);
        for (const auto& ref : missing) {
            auto got = co_await source_.reserve(ref, now);
            if (!got)
                co_return std::nullopt; // nobody answered: gate's fault is not the client's
            ledger_.reserve(ref, *got, now);
        }
    }
    co_return std::nullopt;
}

boost::json::object budget_refusal(request_context& ctx,
                                   const actors::budget_ledger::exhausted& e) {
    refuse(ctx, gateway_error::budget_exhausted,
           {std::to_string(e.allowance), e.period, e.key == "server" ? "the server" : e.key,
            protocol::utc_timestamp(e.resets)});
    return std::move(*ctx.answer.response);
}

} // namespace gate::gateway
