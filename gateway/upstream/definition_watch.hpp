// What an upstream's client asks of pinned definitions when it lists its tools (the gateway
// answers: gateway/entry/definition_reports). Each tool's digest is judged against its pin;
// a change is told (log, audit, metric) where it is judged, once per new digest.
#pragma once

#include "actors/policy/definition_pins.hpp"
#include "config/model.hpp"

#include <optional>
#include <string>

namespace gate::transport {

class definition_watch {
public:
    virtual ~definition_watch() = default;
    // The upstream's pin: its pinDefinitions, else definitions.pin.
    virtual pin_mode mode_of(const config::upstream& cfg) const = 0;
    // The change of a tool `upstream` lists with `digest` under `mode`; nullopt when it is as
    // pinned.
    virtual std::optional<definition_change> judge(const std::string& upstream,
                                                   const std::string& tool,
                                                   const std::string& digest, pin_mode mode) = 0;
};

} // namespace gate::transport
