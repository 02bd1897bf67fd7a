// What an upstream's client asks of pinned definitions when it lists its tools (the gateway
// answers: gateway/upstream/definition_reports). Each tool's digest is judged against its pin;
// a change is told (log, audit, metric) where it is judged, once per new digest. Before a
// list is judged, the pins a fleet shares for its tools are agreed on (the shared store's).
#pragma once

#include "config/model.hpp"
#include "policy/definition_pins.hpp"

#include <boost/asio/awaitable.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gate::gateway {

// A tool of a fetched list and its definition's digest (protocol/tool_definition).
struct listed_definition {
    std::string tool;
    std::string digest;
};

class definition_watch {
public:
    virtual ~definition_watch() = default;
    // The upstream's pin: its pinDefinitions, else definitions.pin.
    virtual policy::pin_mode mode_of(const config::upstream& cfg) const = 0;
    // The change of a tool `upstream` lists with `digest` under `mode`; nullopt when it is as
    // pinned.
    virtual std::optional<policy::definition_change> judge(const std::string& upstream,
                                                           const std::string& tool,
                                                           const std::string& digest,
                                                           policy::pin_mode mode) = 0;
    // Before `upstream`'s list is judged: its tools' pins as a fleet shares them, bounded in
    // time (nothing to agree on without a shared store, or with a lock file).
    virtual boost::asio::awaitable<void> agree(const std::string& upstream,
                                               const std::vector<listed_definition>& listed) {
        (void)upstream;
        (void)listed;
        co_return;
    }
};

} // namespace gate::gateway
