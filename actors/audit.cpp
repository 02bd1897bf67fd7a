#include "actors/audit.hpp"

#include <caf/all.hpp>
#include <random>
#include <spdlog/spdlog.h>
#include <stdexcept>

namespace gate {

namespace {

struct webhook_sink {
    config::audit_sink cfg;
    webhook_batcher batcher;
};

struct audit_state {
    audit_outlet outlet;
    audit_backlog backlog;
    bool to_stdout = false;
    std::vector<webhook_sink> webhooks;
    std::optional<caf::actor_clock::time_point> wake_at;  // the earliest timer armed
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

void post(self_ptr self, std::size_t i, webhook_batcher::batch b) {
    auto& sink = self->state.webhooks[i];
    webhook_delivery d;
    d.url = sink.cfg.url;
    d.headers.assign(sink.cfg.headers.begin(), sink.cfg.headers.end());
    d.headers.emplace_back("Idempotency-Key", b.id);
    d.body = std::move(b.body);
    // Held by the io thread, maybe past this actor (and its system): a weak reference.
    auto weak = caf::actor_cast<caf::weak_actor_ptr>(self);
    d.reply = reply_to<std::pair<webhook_batcher::result, std::string>>(
        [weak, i](std::optional<std::pair<webhook_batcher::result, std::string>> r) {
            auto strong = caf::actor_cast<caf::strong_actor_ptr>(weak);
            if (!strong)
                return;
            audit_webhook_settled m{i, webhook_batcher::result::failed, "no answer"};
            if (r) {
                m.result = r->first;
                m.detail = std::move(r->second);
            }
            caf::anon_send(caf::actor_cast<audit_actor>(strong), std::move(m));
        });
    self->state.outlet.post(std::move(d));
}

// Sends every batch that is due and arms a timer for the next one.
void pump(self_ptr self) {
    auto& st = self->state;
    auto now = self->clock().now();
    std::optional<caf::actor_clock::time_point> next = st.close_by;
    for (std::size_t i = 0; i < st.webhooks.size(); ++i) {
        auto& b = st.webhooks[i].batcher;
        if (auto batch = b.take(now))
            post(self, i, std::move(*batch));
        if (auto due = b.next_due(); due && (!next || *due < *next))
            next = due;
    }
    if (next && (!st.wake_at || *next < *st.wake_at || *st.wake_at <= now)) {
        st.wake_at = next;
        self->delayed_send(self, *next > now ? *next - now : caf::timespan{0},
                           audit_webhook_wake{});
    }
}

bool idle(const audit_state& st) {
    for (const auto& w : st.webhooks)
        if (!w.batcher.idle())
            return false;
    return true;
}

void finish_if_idle(self_ptr self) {
    auto& st = self->state;
    if (!idle(st))
        return;
    for (auto& r : st.flushes)
        r(true);
    st.flushes.clear();
    if (st.close_by)
        self->quit();
}

void log_transition(const webhook_sink& sink, webhook_batcher::transition t,
                    const std::string& detail) {
    using tr = webhook_batcher::transition;
    if (t == tr::outage_began)
        spdlog::warn("audit webhook {}: delivery failed ({}); retrying with backoff, events "
                     "buffered up to {} (said once per outage)",
                     sink.cfg.url, detail, sink.batcher.waiting());
    else if (t == tr::recovered)
        spdlog::info("audit webhook {}: delivering again", sink.cfg.url);
    else if (t == tr::refused)
        spdlog::error("audit webhook {}: the receiver refused a batch ({}); its events are "
                      "dropped, since sending them again would be refused again",
                      sink.cfg.url, detail);
}

audit_actor::behavior_type audit(self_ptr self, audit_outlet outlet, bool to_stdout,
                                 std::vector<config::audit_sink> webhooks, audit_backlog backlog) {
    auto& st = self->state;
    st.outlet = std::move(outlet);
    st.backlog = std::move(backlog);
    st.to_stdout = to_stdout;
    for (auto& w : webhooks)
        st.webhooks.push_back({std::move(w), webhook_batcher(batch_prefix(), st.outlet.limits)});
    return {
        [=](audit_event& e) {
            auto& st = self->state;
            st.backlog->fetch_sub(1, std::memory_order_relaxed);
            auto line = to_json_line(e);
            if (st.to_stdout) {
                std::fwrite(line.data(), 1, line.size(), st.outlet.out);
                std::fflush(st.outlet.out);
            }
            if (st.webhooks.empty())
                return;
            line.pop_back(); // the newline: batches are JSON arrays
            auto now = self->clock().now();
            for (auto& w : st.webhooks)
                if (!w.batcher.add(line, now))
                    st.outlet.tally->dropped.fetch_add(1, std::memory_order_relaxed);
            pump(self);
        },
        [=](audit_close&) {
            auto& st = self->state;
            st.close_by = self->clock().now() + st.outlet.close_grace;
            for (auto& w : st.webhooks)
                w.batcher.close();
            pump(self);
            finish_if_idle(self);
        },
        [=](audit_flush& f) {
            auto& st = self->state;
            st.flushes.push_back(std::move(f.reply));
            for (auto& w : st.webhooks)
                w.batcher.close();
            pump(self);
            finish_if_idle(self);
        },
        [=](audit_webhook_settled& m) {
            auto& st = self->state;
            auto& sink = st.webhooks.at(m.sink);
            auto before = sink.batcher.dropped();
            auto delivered = sink.batcher.delivered();
            auto t = sink.batcher.settle(m.result, self->clock().now());
            st.outlet.tally->dropped.fetch_add(sink.batcher.dropped() - before);
            st.outlet.tally->webhook_delivered.fetch_add(sink.batcher.delivered() - delivered);
            if (m.result == webhook_batcher::result::failed)
                st.outlet.tally->webhook_failures.fetch_add(1);
            log_transition(sink, t, m.detail);
            pump(self);
            finish_if_idle(self);
        },
        [=](audit_webhook_wake&) {
            auto& st = self->state;
            auto now = self->clock().now();
            if (st.wake_at && *st.wake_at <= now)
                st.wake_at.reset();
            if (st.close_by && now >= *st.close_by) {
                std::int64_t left = 0;
                for (const auto& w : st.webhooks)
                    left += static_cast<std::int64_t>(w.batcher.waiting());
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
