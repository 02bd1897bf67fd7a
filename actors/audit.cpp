#include "actors/audit.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <random>
#include <spdlog/spdlog.h>
#include <stdexcept>

namespace gate {

namespace {

struct audit_state {
    audit_outlet outlet;
    audit_backlog backlog;
    bool to_stdout = false;
    batch_targets webhooks;
    std::optional<caf::actor_clock::time_point> close_by; // replaced by a reload: stop then
    std::vector<reply_to<bool>> flushes;
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

void pump(self_ptr self) {
    self->state.webhooks.pump(self, self->state.outlet.post, self->state.close_by);
}

void finish_if_idle(self_ptr self) {
    auto& st = self->state;
    if (!st.webhooks.idle())
        return;
    for (auto& r : st.flushes)
        r(true);
    st.flushes.clear();
    if (st.close_by)
        self->quit();
}

// One event to every sink: stdout at once, each webhook's buffer.
void write(self_ptr self, const audit_event& e, caf::actor_clock::time_point now) {
    auto& st = self->state;
    auto line = to_json_line(e);
    if (st.to_stdout)
        std::fwrite(line.data(), 1, line.size(), st.outlet.out);
    if (st.webhooks.list.empty())
        return;
    line.pop_back(); // the newline: batches are JSON arrays
    for (auto& w : st.webhooks.list)
        if (!w.buffer.add(line, now))
            st.outlet.tally->dropped.fetch_add(1, std::memory_order_relaxed);
}

audit_actor::behavior_type audit(self_ptr self, audit_outlet outlet, bool to_stdout,
                                 std::vector<config::audit_sink> webhooks, audit_backlog backlog) {
    auto& st = self->state;
    st.outlet = std::move(outlet);
    st.backlog = std::move(backlog);
    st.to_stdout = to_stdout;
    for (auto& w : webhooks)
        st.webhooks.list.push_back(
            {"audit webhook " + w.url, w.url,
             std::vector<std::pair<std::string, std::string>>(w.headers.begin(), w.headers.end()),
             "", "", "Idempotency-Key", batcher(batch_prefix(), st.outlet.limits)});
    return {
        [=](audit_event& e) {
            auto& st = self->state;
            st.backlog->fetch_sub(1, std::memory_order_relaxed);
            write(self, e, self->clock().now());
            if (st.to_stdout)
                std::fflush(st.outlet.out);
            if (!st.webhooks.list.empty())
                pump(self);
        },
        [=](audit_batch& b) {
            auto& st = self->state;
            st.backlog->fetch_sub(static_cast<std::int64_t>(b.events.size()),
                                  std::memory_order_relaxed);
            auto now = self->clock().now();
            for (const auto& e : b.events)
                write(self, e, now);
            if (st.to_stdout)
                std::fflush(st.outlet.out);
            if (!st.webhooks.list.empty())
                pump(self);
        },
        [=](audit_close&) {
            auto& st = self->state;
            st.close_by = self->clock().now() + st.outlet.close_grace;
            st.webhooks.close();
            pump(self);
            finish_if_idle(self);
        },
        [=](audit_flush& f) {
            auto& st = self->state;
            st.flushes.push_back(std::move(f.reply));
            st.webhooks.close();
            pump(self);
            finish_if_idle(self);
        },
        [=](batch_settled& m) {
            auto& st = self->state;
            st.webhooks.settle(m, self->clock().now(), *st.outlet.tally);
            pump(self);
            finish_if_idle(self);
        },
        [=](batch_wake&) {
            auto& st = self->state;
            auto now = self->clock().now();
            st.webhooks.woke(now);
            if (st.close_by && now >= *st.close_by) {
                auto left = st.webhooks.waiting();
                if (left > 0)
                    spdlog::error("audit sink replaced by a reload: {} event(s) its webhooks "
                                  "could not deliver within the grace period are dropped",
                                  left);
                st.outlet.tally->dropped.fetch_add(left);
                self->quit();
                return;
            }
            pump(self);
        },
    };
}

} // namespace

bool audit_channel::offer(audit_event e) const {
    if (!sink_)
        return true;
    if (backlog_->fetch_add(1, std::memory_order_relaxed) >= capacity_) {
        backlog_->fetch_sub(1, std::memory_order_relaxed);
        if (tally_)
            tally_->dropped.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    caf::anon_send(sink_, std::move(e));
    return true;
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

} // namespace gate
