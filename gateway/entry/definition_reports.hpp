// Pinned definitions as the gateway runs them: the pins (actors/policy/definition_pins) under
// the running document's default and lock file, and each change told once: a warning in the
// log, an audit event (`definitionChanged`, the pinned and listed digests, warn or block) and
// gate_definition_changes_total. The upstream clients ask it at each tools list.
#pragma once

#include "actors/sinks/audit_event.hpp"
#include "gateway/operations/metrics.hpp"
#include "gateway/upstream/definition_watch.hpp"

#include <functional>

namespace gate::transport {

class definition_reports final : public definition_watch {
public:
    definition_reports(metrics& stats, std::function<void(audit_event)> audit)
        : stats_(stats), audit_(std::move(audit)) {}

    // The document's default pin and lock file (at start, and at each reload).
    void use(const config::document& doc);

    pin_mode mode_of(const config::upstream& cfg) const override;
    std::optional<definition_change> judge(const std::string& upstream, const std::string& tool,
                                           const std::string& digest, pin_mode mode) override;

private:
    void report(const std::string& upstream, const std::string& tool,
                const definition_change& change, pin_mode mode);

    pin_mode default_ = pin_mode::off;
    definition_pins pins_;
    metrics& stats_;
    std::function<void(audit_event)> audit_;
};

} // namespace gate::transport
