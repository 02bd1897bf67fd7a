#include "gateway/pipeline/request_traffic.hpp"

namespace gate::gateway {

void follow_upstreams(traffic_history& t, const actors::snapshot& snap) {
    if (t.followed() && snap.version <= t.version())
        return;
    std::vector<std::string> ids;
    ids.reserve(snap.size());
    for (std::size_t i = 0; i < snap.size(); ++i)
        ids.push_back(snap.upstream(i).id);
    t.follow(snap.version, ids);
}

std::size_t traffic_slot_slowly(traffic_history& t, const request_context& ctx) {
    if (!ctx.upstream || !ctx.view || !ctx.view->snap)
        return traffic_history::unrouted;
    const auto& snap = *ctx.view->snap;
    follow_upstreams(t, snap); // a request that came before its configuration was followed
    if (ctx.routed.target)
        return t.slot(snap.version, ctx.routed.target->upstream, *ctx.upstream);
    return t.slot_of(*ctx.upstream); // not routed by name (tasks, a passthrough initialize)
}

void note_refusal(traffic_history& t, const request_context& ctx, traffic_history::time_point now) {
    auto text = [](const std::optional<std::string>& s) {
        return s ? std::string_view(*s) : std::string_view();
    };
    t.refused(now, ctx.answer.rejection ? std::string_view("http") : std::string_view(ctx.method),
              text(ctx.name), text(ctx.upstream), ctx.audit.outcome, text(ctx.policy.rule_id),
              principal_key(ctx.who.caller));
}

} // namespace gate::gateway
