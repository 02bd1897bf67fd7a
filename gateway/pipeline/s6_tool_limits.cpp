#include "gateway/pipeline/s6_tool_limits.hpp"

#include "gateway/pipeline/client_answer.hpp"

#include <chrono>

namespace gate::gateway::pipeline {

namespace {

// The upstream's own name of the tool a routed tools/call calls (route rewrote it).
std::string_view tool_of(const request_context& ctx) {
    const auto* name = ctx.routed.target->params.if_contains("name");
    return name && name->is_string() ? std::string_view(name->get_string()) : std::string_view();
}

} // namespace

std::vector<actors::tool_window_ref> tool_limits::windows_of(const request_context& ctx) const {
    if (!ctx.routed.target || ctx.method != "tools/call" || !s_.limiting())
        return {};
    const auto& upstream = ctx.view->snap->upstream(ctx.routed.target->upstream);
    if (upstream.tool_limits.empty())
        return {};
    return actors::tool_windows_for(upstream, tool_of(ctx), principal_key(ctx.who.caller));
}

std::size_t tool_limits::take_now(const std::vector<actors::tool_window_ref>& windows,
                                  time_point now) {
    for (std::size_t i = 0; i < windows.size(); ++i)
        if (!leases_.of(windows[i].shared())->slots.take(now))
            return i;
    return windows.size();
}

boost::asio::awaitable<std::optional<tool_limits::refusal>>
tool_limits::take(std::vector<actors::tool_window_ref> windows, std::size_t first) {
    for (std::size_t i = first; i < windows.size(); ++i) {
        const auto& w = windows[i];
        auto lease = leases_.of(w.shared());
        auto refused = co_await admit_through(
            lease->slots, lease->flight,
            [&](const actors::slot_demand& demand)
                -> boost::asio::awaitable<std::optional<actors::sliding_window::batch>> {
                if (auto b = co_await s_.take_shared(w.shared(), w.per_minute, demand))
                    co_return b;
                co_return co_await s_.take_tool(w.scope, w.principal, w.per_minute, demand);
            });
        if (refused)
            co_return refusal{w, *refused};
    }
    co_return std::nullopt;
}

boost::json::object tool_limits::refuse(request_context& ctx, const refusal& r) {
    const auto& upstream = ctx.view->snap->upstream(ctx.routed.target->upstream);
    std::string tool(tool_of(ctx));
    auto wait = std::max(r.batch.wait, std::chrono::milliseconds(1));
    upstream_failure f;
    f.what = upstream_failure::kind::rate_limited;
    f.retry_after = wait;
    f.message = "rate limit of " + std::to_string(r.window.per_minute) +
                (r.window.per_minute == 1 ? " call" : " calls") + " per minute of tool " + tool +
                " (toolLimits/" + std::to_string(r.window.entry) + ") reached " +
                (r.window.per_principal() ? "for " + ctx.who.caller->subject : "for everyone") +
                "; retry in " + std::to_string(actors::whole_seconds(wait)) + " s";
    auto answer = refuse_upstream(ctx, ctx.message.id, upstream.id, f);
    auto& data = answer["error"].as_object()["data"].as_object();
    data["tool"] = tool;
    data["limit"] = r.window.per_principal() ? "principal" : "everyone";
    return answer;
}

} // namespace gate::gateway::pipeline
