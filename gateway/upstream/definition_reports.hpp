// Pinned definitions as the gateway runs them: the pins (policy/definition_pins) under
// the running document's default and lock file, and each change told once: a warning in the
// log, an audit event (`definitionChanged`, the pinned and listed digests, warn or block) and
// gate_definition_changes_total. The upstream clients ask it at each tools list. With a
// fleet's store and no lock file, the first definition any instance saw is every instance's
// pin (`gate:pin:<upstream>\n<tool>`, docs/fleet.md); while the store does not answer, each
// instance's own first seen stands in (logged once per outage).
#pragma once

#include "actors/sinks/audit_event.hpp"
#include "gateway/operations/metrics.hpp"
#include "gateway/upstream/definition_watch.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>

namespace gate::gateway {

class fleet_store;

class definition_reports final : public definition_watch {
public:
    // A shared pin lives this long after the last list of its tool by any instance: as long as
    // the tool is listed somewhere in the fleet, and not forever once it is gone.
    static constexpr auto shared_pin_lifetime = std::chrono::hours(24 * 30);

    definition_reports(metrics& stats, std::function<void(actors::audit_event)> audit)
        : stats_(stats), audit_(std::move(audit)) {}

    // The document's default pin and lock file (at start, and at each reload).
    void use(const config::document& doc);
    // The fleet's store (server.redisUrl), where the pins are shared.
    void share_through(std::shared_ptr<fleet_store> fleet) { fleet_ = std::move(fleet); }

    policy::pin_mode mode_of(const config::upstream& cfg) const override;
    std::optional<policy::definition_change> judge(const std::string& upstream,
                                                   const std::string& tool,
                                                   const std::string& digest,
                                                   policy::pin_mode mode) override;
    boost::asio::awaitable<void> agree(const std::string& upstream,
                                       const std::vector<listed_definition>& listed) override;

private:
    void report(const std::string& upstream, const std::string& tool,
                const policy::definition_change& change, policy::pin_mode mode);

    // The io threads without a fleet's store share one (docs/io-threads.md): their clients'
    // lists are judged against one set of pins. Held for a judgement, never across a wait.
    mutable std::mutex mutex_;
    policy::pin_mode default_ = policy::pin_mode::off;
    policy::definition_pins pins_;
    metrics& stats_;
    std::function<void(actors::audit_event)> audit_;
    std::shared_ptr<fleet_store> fleet_;
    bool shared_down_ = false; // the store did not answer the last time: said once
};

} // namespace gate::gateway
