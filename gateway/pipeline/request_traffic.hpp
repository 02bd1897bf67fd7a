// What the exit (stage 9) tells the console's traffic history of each request
// (traffic_history.hpp): its outcome and latency under its upstream's series (unrouted for a
// request no single upstream answered), and a refusal with its method, name, rule and whose it
// was. The exit runs it for every request: the common path (a routed call of the configuration
// followed, no refusal) is inline, a comparison of versions and of the upstream's id, a
// pointer's load and two increments; a reload's first request and refusals go out of line.
#pragma once

#include "gateway/operations/traffic_history.hpp"
#include "gateway/pipeline/request_context.hpp"

namespace gate::gateway {

// The series of configuration `snap`'s upstreams: followed at start and at each reload
// (gateway_components), so no request pays for it.
void follow_upstreams(traffic_history& t, const actors::snapshot& snap);
// The series of the request's upstream, following a newer configuration first (rare).
std::size_t traffic_slot_slowly(traffic_history& t, const request_context& ctx);
// A refused request, with whose it was (principal_key).
void note_refusal(traffic_history& t, const request_context& ctx, traffic_history::time_point now);

inline void count_traffic(traffic_history& t, const request_context& ctx,
                          traffic_history::duration took, traffic_history::time_point now) {
    auto slot = traffic_history::unrouted;
    if (ctx.upstream) {
        const auto* snap = ctx.view ? ctx.view->snap.get() : nullptr;
        if (snap && ctx.routed.target && t.followed() && snap->version == t.version())
            slot = t.slot(snap->version, ctx.routed.target->upstream, *ctx.upstream);
        else
            slot = traffic_slot_slowly(t, ctx);
    }
    t.record(slot, ctx.audit.outcome, took, now);
    if (traffic_history::is_refusal(ctx.audit.outcome)) [[unlikely]]
        note_refusal(t, ctx, now);
}

} // namespace gate::gateway
