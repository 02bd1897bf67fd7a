#include "actors/audit.hpp"

#include <caf/all.hpp>

namespace gate {

namespace {
audit_actor::behavior_type audit(audit_actor::pointer self, std::FILE* out, bool to_stdout,
                                 audit_backlog backlog) {
    return {
        [=](audit_close&) { self->quit(); },
        [=](audit_event& e) {
            backlog->fetch_sub(1, std::memory_order_relaxed);
            if (!to_stdout)
                return;
            auto line = to_json_line(e);
            std::fwrite(line.data(), 1, line.size(), out);
            std::fflush(out);
        },
    };
}
} // namespace

bool audit_channel::offer(audit_event e) const {
    if (!sink_)
        return true;
    if (backlog_->fetch_add(1, std::memory_order_relaxed) >= capacity_) {
        backlog_->fetch_sub(1, std::memory_order_relaxed);
        return false;
    }
    caf::anon_send(sink_, std::move(e));
    return true;
}

audit_channel spawn_audit(caf::actor_system& sys, const std::optional<config::audit>& cfg,
                          std::FILE* out, std::int64_t capacity) {
    if (!cfg)
        return {};
    bool to_stdout = false;
    for (const auto& s : cfg->sinks)
        to_stdout = to_stdout || s.type == "stdout";
    auto backlog = std::make_shared<std::atomic<std::int64_t>>(0);
    return audit_channel(sys.spawn(audit, out, to_stdout, backlog), backlog, capacity);
}

} // namespace gate
