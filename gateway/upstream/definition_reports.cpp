#include "gateway/upstream/definition_reports.hpp"

#include "gateway/fleet/fleet_store.hpp"
#include "protocol/param_headers.hpp"

#include <spdlog/spdlog.h>

namespace gate::gateway {

void definition_reports::use(const config::document& doc) {
    std::lock_guard lock(mutex_);
    default_ = policy::pin_mode_named(doc.definitions.pin).value_or(policy::pin_mode::off);
    if (doc.definitions.lock_file)
        pins_.use_lock(doc.definitions.lock);
    else
        pins_.use_lock(std::nullopt);
}

policy::pin_mode definition_reports::mode_of(const config::upstream& cfg) const {
    std::lock_guard lock(mutex_);
    if (cfg.pin_definitions)
        return policy::pin_mode_named(*cfg.pin_definitions).value_or(default_);
    return default_;
}

std::optional<policy::definition_change> definition_reports::judge(const std::string& upstream,
                                                                   const std::string& tool,
                                                                   const std::string& digest,
                                                                   policy::pin_mode mode) {
    std::lock_guard lock(mutex_);
    auto change = pins_.judge(upstream, tool, digest);
    if (change && !change->reported)
        report(upstream, tool, *change, mode);
    return change;
}

boost::asio::awaitable<void>
definition_reports::agree(const std::string& upstream,
                          const std::vector<listed_definition>& listed) {
    if (!fleet_)
        co_return;
    auto now = policy::definition_pins::clock::now();
    // The upstream's id is a slug: the first newline ends it, whatever the tool's name holds.
    std::vector<std::pair<std::string, std::string>> offers;
    std::vector<const listed_definition*> asked;
    std::unique_lock lock(mutex_);
    for (const auto& l : listed)
        if (auto offer = pins_.to_share(upstream, l.tool, l.digest, now)) {
            offers.emplace_back(upstream + "\n" + l.tool, std::move(*offer));
            asked.push_back(&l);
        }
    lock.unlock(); // not across the store's answer
    if (offers.empty())
        co_return;
    auto fleet = fleet_; // a reload may not take it away mid-question
    auto held = co_await fleet->keep_first(
        "pin", offers, std::chrono::duration_cast<std::chrono::milliseconds>(shared_pin_lifetime));
    lock.lock();
    if (!held) {
        if (!shared_down_)
            spdlog::warn("pinned definitions: the shared store did not answer; upstream {}'s "
                         "tools (and others' until it answers) are compared with this "
                         "instance's own first-seen definitions",
                         upstream);
        shared_down_ = true;
        co_return;
    }
    if (shared_down_)
        spdlog::info("pinned definitions: the shared store answers again; the fleet's first-seen "
                     "definitions are the pins again");
    shared_down_ = false;
    auto agreed = policy::definition_pins::clock::now();
    for (std::size_t i = 0; i < asked.size(); ++i)
        if (!pins_.pin_shared(upstream, asked[i]->tool, std::move((*held)[i]), agreed))
            spdlog::debug("pinned definitions: the shared store's pin of upstream {}'s tool {} "
                          "is not a digest; this instance's own stands in",
                          upstream, protocol::printable(asked[i]->tool, 200));
}

void definition_reports::report(const std::string& upstream, const std::string& tool,
                                const policy::definition_change& change, policy::pin_mode mode) {
    auto kind = change.unpinnable ? "unpinnable" : change.pinned.empty() ? "new" : "changed";
    auto action = pin_mode_name(mode);
    // Names and digests only: a description may say anything, and is not logged.
    if (change.unpinnable)
        spdlog::warn("upstream {}: gate holds {} pinned tools of it, its bound of one upstream; "
                     "tool {} and every other new tool of it cannot be pinned and are {} (said "
                     "once; a lock file pins what it names)",
                     upstream, policy::definition_pins::max_pins_per_upstream,
                     protocol::printable(tool, 200),
                     mode == policy::pin_mode::block ? "withheld"
                                                     : "served unpinned (pinDefinitions warn)");
    else
        spdlog::warn(
            "upstream {}: tool {} {} ({} -> {}); {}", upstream, protocol::printable(tool, 200),
            change.pinned.empty() ? "is not in the lock file" : "changed its definition",
            change.pinned.empty() ? "none" : change.pinned, change.seen,
            mode == policy::pin_mode::block ? "withheld until it is locked and gate reloaded"
                                            : "served (pinDefinitions warn)");
    stats_.definition_change(upstream, kind, action);
    actors::audit_event e;
    e.time = std::chrono::system_clock::now();
    e.method = "definitionChanged";
    e.name = tool;
    e.upstream = upstream;
    e.outcome = mode == policy::pin_mode::block ? protocol::outcome::denied : protocol::outcome::ok;
    boost::json::object d{{"listed", change.seen}, {"action", action}, {"change", kind}};
    if (!change.pinned.empty())
        d["pinned"] = change.pinned;
    e.definition = std::move(d);
    audit_(std::move(e));
}

} // namespace gate::gateway
