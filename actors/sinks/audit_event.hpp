// One audit event per terminal response (spec: "Audit event").
#pragma once

#include "protocol/outcome.hpp"

#include <boost/describe/class.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gate::actors {

struct audit_event {
    std::chrono::system_clock::time_point time;
    std::optional<std::string> principal, issuer;
    std::string method; // MCP method, or "http" for pre-MCP refusals
    std::optional<std::string> name, upstream;
    std::optional<std::string> decision, rule_id;
    // A denial a rule would turn into a grant with these scopes (a step-up challenge).
    std::vector<std::string> required_scopes;
    protocol::outcome outcome = protocol::outcome::ok;
    std::optional<std::string> error;
    double latency_ms = 0;
    std::optional<std::string> tenant;
    std::int64_t upstream_calls = 0;
    std::optional<std::int64_t> items_served;
    // An upstream's `_meta.usage` as JSON text on one line, as the upstream wrote it.
    std::optional<std::string> usage;
    // The upstream's configured owner ({org, team, contact}, those set), as the spec has it
    // surface in audit.
    std::optional<boost::json::object> owner;
    // A definitionChanged event's {pinned, listed, action} (pinned definitions).
    std::optional<boost::json::object> definition;
    // The decision hook's say on this request ({stage, verdict, reason?, error?, cached?}).
    std::optional<boost::json::object> hook;
};

// One JSON object, field names as the spec spells them; absent fields are omitted.
std::string to_json_line(const audit_event& e);

// Described for the actor messages that carry it (actors/message_inspection.hpp).
BOOST_DESCRIBE_STRUCT(audit_event, (),
                      (time, principal, issuer, method, name, upstream, decision, rule_id,
                       required_scopes, outcome, error, latency_ms, tenant, upstream_calls,
                       items_served, usage, owner, definition, hook))

} // namespace gate::actors
