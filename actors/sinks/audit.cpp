#include "actors/sinks/audit.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <random>
#include <stdexcept>

namespace gate::actors {

namespace {

struct audit_state {
    audit_outlet outlet;
    audit_backlog backlog;
    bool to_stdout = false;
    delivery_shell webhooks;
    static inline const char* name = "gate.audit";
};

using self_ptr = audit_actor::stateful_pointer<audit_state>;

// An id for this sink's batches, unlikely to repeat across processes and restarts, so a
// receiver may deduplicate on the idempotency key alone.
std::string batch_prefix() {
    std::random_device rd;
    char buf[17];
    std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
    return buf;
}

// One event to every sink: stdout at once, each webhook's buffer.
void write(self_ptr self, const audit_event& e, caf::actor_clock::time_point now) {
    auto& st = self->state;
    auto line = to_json_line(e);
    if (st.to_stdout)
        std::fwrite(line.data(), 1, line.size(), st.outlet.out);
    if (st.webhooks.targets.list.empty())
        return;
    line.pop_back(); // the newline: batches are JSON arrays
    for (auto& w : st.webhooks.targets.list)
        if (!w.buffer.add(line, now))
            st.outlet.tally->dropped.fetch_add(1, std::memory_order_relaxed);
}

// After events were written: stdout flushed, due batches posted.
void written(self_ptr self) {
    auto& st = self->state;
    if (st.to_stdout)
        std::fflush(st.outlet.out);
    if (!st.webhooks.targets.list.empty())
        st.webhooks.pump(self);
}

audit_actor::behavior_type audit(self_ptr self, audit_outlet outlet, bool to_stdout,
                                 std::vector<config::audit_sink> webhooks, audit_backlog backlog) {
    auto& st = self->state;
    st.outlet = std::move(outlet);
    st.backlog = std::move(backlog);
    st.to_stdout = to_stdout;
    st.webhooks.post = st.outlet.post;
    st.webhooks.tally = st.outlet.tally;
    st.webhooks.close_grace = st.outlet.close_grace;
    st.webhooks.what = "audit sink";
    for (auto& w : webhooks)
        st.webhooks.targets.list.push_back(
            {"audit webhook " + w.url, w.url,
             std::vector<std::pair<std::string, std::string>>(w.headers.begin(), w.headers.end()),
             "", "", "Idempotency-Key", batcher(batch_prefix(), st.outlet.limits)});
    return {
        [=](audit_batch& b) {
            self->state.backlog->fetch_sub(static_cast<std::int64_t>(b.events.size()),
                                           std::memory_order_relaxed);
            auto now = self->clock().now();
            for (const auto& e : b.events)
                write(self, e, now);
            written(self);
        },
        [=](audit_close&) { self->state.webhooks.close(self); },
        [=](audit_flush& f) { self->state.webhooks.flush(self, std::move(f.reply)); },
        [=](batch_settled& m) { self->state.webhooks.settled(self, m); },
        [=](batch_wake&) { self->state.webhooks.wake(self); },
    };
}

} // namespace

bool audit_channel::offer(audit_event e) const {
    std::vector<audit_event> one;
    one.push_back(std::move(e));
    return offer_all(std::move(one)) == 0;
}

std::int64_t audit_channel::offer_all(std::vector<audit_event> events) const {
    if (!sink_ || events.empty())
        return 0;
    auto n = static_cast<std::int64_t>(events.size());
    auto before = backlog_->fetch_add(n, std::memory_order_relaxed);
    auto room = std::max<std::int64_t>(0, capacity_ - before);
    std::int64_t dropped = 0;
    if (room < n) {
        dropped = n - room;
        backlog_->fetch_sub(dropped, std::memory_order_relaxed);
        events.resize(static_cast<std::size_t>(room));
        if (tally_)
            tally_->dropped.fetch_add(dropped, std::memory_order_relaxed);
    }
    if (!events.empty())
        caf::anon_send(sink_, audit_batch{std::move(events)});
    return dropped;
}

audit_channel spawn_audit(caf::actor_system& sys, const std::optional<config::audit>& cfg,
                          const audit_outlet& outlet, std::int64_t capacity) {
    if (!cfg)
        return {};
    bool to_stdout = false;
    std::vector<config::audit_sink> webhooks;
    for (const auto& s : cfg->sinks) {
        to_stdout = to_stdout || s.type == "stdout";
        if (s.type == "webhook")
            webhooks.push_back(s);
    }
    if (!webhooks.empty() && !outlet.post)
        throw std::logic_error("an audit webhook sink needs a poster (the io side)");
    auto backlog = std::make_shared<std::atomic<std::int64_t>>(0);
    return audit_channel(sys.spawn(audit, outlet, to_stdout, std::move(webhooks), backlog), backlog,
                         capacity, outlet.tally);
}

} // namespace gate::actors
