#include "actors/sinks/span_sink.hpp"

#include "protocol/otlp_json.hpp"

#include <caf/all.hpp>
#include <stdexcept>

namespace gate::actors {

namespace {

struct span_sink_state {
    span_outlet outlet;
    delivery_shell collector; // one target: the OTLP endpoint
    static inline const char* name = "gate.span_sink";
};

using self_ptr = span_sink_actor::stateful_pointer<span_sink_state>;

span_sink_actor::behavior_type span_sink(self_ptr self, config::tracing cfg, span_outlet outlet) {
    auto& st = self->state;
    st.outlet = std::move(outlet);
    st.collector.post = st.outlet.post;
    st.collector.tally = st.outlet.tally;
    st.collector.close_grace = st.outlet.close_grace;
    st.collector.what = "span sink";
    auto envelope = protocol::otlp_export_envelope(cfg.service_name, st.outlet.version);
    st.collector.targets.list.push_back({"trace export " + cfg.otlp_endpoint,
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
                if (!st.collector.targets.list[0].buffer.add(std::move(s), now))
                    st.outlet.tally->dropped.fetch_add(1, std::memory_order_relaxed);
            st.collector.pump(self);
        },
        [=](batch_close&) { self->state.collector.close(self); },
        [=](batch_flush& f) { self->state.collector.flush(self, std::move(f.reply)); },
        [=](batch_settled& m) { self->state.collector.settled(self, m); },
        [=](batch_wake&) { self->state.collector.wake(self); },
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

} // namespace gate::actors
