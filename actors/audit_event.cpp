#include "actors/audit_event.hpp"

#include "protocol/utc_timestamp.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>

namespace gate {

std::string to_json_line(const audit_event& e) {
    boost::json::object o;
    o["time"] = protocol::utc_timestamp(e.time);
    auto opt = [&](const char* key, const std::optional<std::string>& v) {
        if (v)
            o[key] = *v;
    };
    opt("principal", e.principal);
    opt("issuer", e.issuer);
    o["method"] = e.method;
    opt("name", e.name);
    opt("upstream", e.upstream);
    opt("decision", e.decision);
    opt("ruleId", e.rule_id);
    o["outcome"] = e.outcome;
    opt("error", e.error);
    // Microsecond resolution is plenty and keeps the line short.
    o["latencyMs"] = std::round(e.latency_ms * 1000) / 1000;
    opt("tenant", e.tenant);
    o["upstreamCalls"] = e.upstream_calls;
    if (e.items_served)
        o["itemsServed"] = *e.items_served;
    if (e.usage)
        o["usage"] = *e.usage;
    auto line = boost::json::serialize(o);
    line.push_back('\n');
    return line;
}

} // namespace gate
