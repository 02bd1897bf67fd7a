// What the exit (stage 9) tells the console's traffic history of each request
// (traffic_history.hpp): its outcome and latency under its upstream's series (unrouted for a
// request no single upstream answered), and a refusal with its method, name, rule and whose it
// was. Inline: the exit runs it for every request, and its common path is a comparison, a
// pointer's load and two increments.
#pragma once

#include "gateway/operations/traffic_history.hpp"
#include "gateway/pipeline/request_context.hpp"

namespace gate::transport {

inline std::size_t traffic_slot(traffic_history& t, const request_context& ctx) {
    if (!ctx.upstream || !ctx.view || !ctx.view->snap)
        return traffic_history::unrouted;
    const auto& snap = *ctx.view->snap;
    if (!t.followed() || snap.version > t.version()) {
        std::vector<std::string> ids; // a reload's first request (rare)
        for (std::size_t i = 0; i < snap.size(); ++i)
            ids.push_back(snap.upstream(i).id);
        t.follow(snap.version, ids);
    }
    if (ctx.target)
        return t.slot(snap.version, ctx.target->upstream, *ctx.upstream);
    return t.slot_of(*ctx.upstream);
}

inline void count_traffic(traffic_history& t, const request_context& ctx,
                          traffic_history::duration took, traffic_history::time_point now) {
    t.record(traffic_slot(t, ctx), ctx.outcome, took, now);
    if (!traffic_history::is_refusal(ctx.outcome))
        return;
    t.refused(now, ctx.rejection ? std::string_view("http") : std::string_view(ctx.method),
              ctx.name ? std::string_view(*ctx.name) : std::string_view(),
              ctx.upstream ? std::string_view(*ctx.upstream) : std::string_view(), ctx.outcome,
              ctx.rule_id ? std::string_view(*ctx.rule_id) : std::string_view(),
              ctx.caller ? principal_key(ctx.caller) : std::string());
}

} // namespace gate::transport
