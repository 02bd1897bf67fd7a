#include "actors/audit.hpp"

#include <caf/all.hpp>

namespace gate {

namespace {
audit_actor::behavior_type audit(audit_actor::pointer, std::FILE* out, bool to_stdout) {
    return {
        [=](const audit_event& e) {
            if (!to_stdout)
                return;
            auto line = to_json_line(e);
            std::fwrite(line.data(), 1, line.size(), out);
            std::fflush(out);
        },
    };
}
} // namespace

audit_actor spawn_audit(caf::actor_system& sys, const std::optional<config::audit>& cfg,
                        std::FILE* out) {
    if (!cfg)
        return {};
    bool to_stdout = false;
    for (const auto& s : cfg->sinks)
        to_stdout = to_stdout || s.type == "stdout";
    // Webhook sinks arrive with the operations issue; until then only stdout is written.
    return sys.spawn(audit, out, to_stdout);
}

} // namespace gate
