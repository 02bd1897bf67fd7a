#include "actors/span_sink.hpp"

#include "protocol/otlp_json.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>
#include <stdexcept>

namespace gate {

namespace {

struct span_sink_state {
    span_outlet outlet;
    batch_targets collector; // one target: the OTLP endpoint
    std::optional<caf::actor_clock::time_point> close_by;
    std::vector<reply_to<bool>> flushes;
    static inline const char* name = "gate.span_sink";
};

using self_ptr = span_sink_actor::stateful_pointer<span_sink_state>;

void pump(self_ptr self) {
    self->state.collector.pump(self, self->state.outlet.post, self->state.close_by);
}

void finish_if_idle(self_ptr self) {
    auto& st = self->state;
    if (!st.collector.idle())
        return;
    for (auto& r : st.flushes)
        r(true);
    st.flushes.clear();
    if (st.close_by)
        self->quit();
}

span_sink_actor::behavior_type span_sink(self_ptr self, config::tracing cfg, span_outlet outlet) {
    auto& st = self->state;
    st.outlet = std::move(outlet);
    auto envelope = protocol::otlp_export_envelope(cfg.service_name, st.outlet.version);
    st.collector.list.push_back({"trace export " + cfg.otlp_endpoint,
                                 cfg.otlp_endpoint,
                                 {},
                                 std::move(envelope.head),
                                 std::move(envelope.tail),
                                 "",
                                 batcher("spans", st.outlet.limits)});
    return {
        [=](span_batch& b) {
            auto& st = self->state;
            auto now = self->clock().now();
            for (auto& s : b.spans)
                if (!st.collector.list[0].buffer.add(std::move(s), now))
                    st.outlet.tally->dropped.fetch_add(1, std::memory_order_relaxed);
            pump(self);
        },
        [=](batch_close&) {
            auto& st = self->state;
            st.close_by = self->clock().now() + st.outlet.close_grace;
            st.collector.close();
            pump(self);
            finish_if_idle(self);
        },
        [=](batch_flush& f) {
            auto& st = self->state;
            st.flushes.push_back(std::move(f.reply));
            st.collector.close();
            pump(self);
            finish_if_idle(self);
        },
        [=](batch_settled& m) {
            auto& st = self->state;
            st.collector.settle(m, self->clock().now(), *st.outlet.tally);
            pump(self);
            finish_if_idle(self);
        },
        [=](batch_wake&) {
            auto& st = self->state;
            auto now = self->clock().now();
            st.collector.woke(now);
            if (st.close_by && now >= *st.close_by) {
                st.outlet.tally->dropped.fetch_add(st.collector.waiting());
                self->quit();
                return;
            }
            pump(self);
        },
    };
}

} // namespace

span_sink_actor spawn_span_sink(caf::actor_system& sys, const std::optional<config::tracing>& cfg,
                                const span_outlet& outlet) {
    if (!cfg)
        return {};
    if (!outlet.post)
        throw std::logic_error("trace export needs a poster (the io side)");
    return sys.spawn(span_sink, *cfg, outlet);
}

} // namespace gate
