#include "gateway/entry/definition_reports.hpp"

#include "protocol/param_headers.hpp"

#include <spdlog/spdlog.h>

namespace gate::transport {

void definition_reports::use(const config::document& doc) {
    default_ = pin_mode_named(doc.definitions.pin).value_or(pin_mode::off);
    if (doc.definitions.lock_file)
        pins_.use_lock(doc.definitions.lock);
    else
        pins_.use_lock(std::nullopt);
}

pin_mode definition_reports::mode_of(const config::upstream& cfg) const {
    if (cfg.pin_definitions)
        return pin_mode_named(*cfg.pin_definitions).value_or(default_);
    return default_;
}

std::optional<definition_change> definition_reports::judge(const std::string& upstream,
                                                           const std::string& tool,
                                                           const std::string& digest,
                                                           pin_mode mode) {
    auto change = pins_.judge(upstream, tool, digest);
    if (change && !change->reported)
        report(upstream, tool, *change, mode);
    return change;
}

void definition_reports::report(const std::string& upstream, const std::string& tool,
                                const definition_change& change, pin_mode mode) {
    auto kind = change.pinned.empty() ? "new" : "changed";
    auto action = pin_mode_name(mode);
    // Names and digests only: a description may say anything, and is not logged.
    spdlog::warn("upstream {}: tool {} {} ({} -> {}); {}", upstream, protocol::printable(tool, 200),
                 change.pinned.empty() ? "is not in the lock file" : "changed its definition",
                 change.pinned.empty() ? "none" : change.pinned, change.seen,
                 mode == pin_mode::block ? "withheld until it is locked and gate reloaded"
                                         : "served (pinDefinitions warn)");
    stats_.definition_change(upstream, kind, action);
    audit_event e;
    e.time = std::chrono::system_clock::now();
    e.method = "definitionChanged";
    e.name = tool;
    e.upstream = upstream;
    e.outcome = mode == pin_mode::block ? protocol::outcome::denied : protocol::outcome::ok;
    boost::json::object d{{"listed", change.seen}, {"action", action}, {"change", kind}};
    if (!change.pinned.empty())
        d["pinned"] = change.pinned;
    e.definition = std::move(d);
    audit_(std::move(e));
}

} // namespace gate::transport
