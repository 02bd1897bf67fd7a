#include "actors/sinks/audit_event.hpp"

#include "protocol/utc_timestamp.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <cstdio>

namespace gate::actors {

namespace {

// Written field by field: Boost.JSON prints every double in exponent form (2.12E-1), which
// is valid but hostile to people reading audit lines; latency is printed as plain decimal.
class line_writer {
public:
    void text(std::string_view key, std::string_view value) {
        field(key);
        out_ += boost::json::serialize(boost::json::string(value));
    }
    void maybe(std::string_view key, const std::optional<std::string>& value) {
        if (value)
            text(key, *value);
    }
    void integer(std::string_view key, std::int64_t value) {
        field(key);
        out_ += std::to_string(value);
    }
    void millis(std::string_view key, double value) {
        field(key);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3f", value);
        out_ += buf;
    }
    void raw(std::string_view key, const boost::json::value& value) {
        field(key);
        out_ += boost::json::serialize(value);
    }
    // `text`: JSON on one line, written as it is.
    void json_text(std::string_view key, std::string_view text) {
        field(key);
        out_ += text;
    }
    std::string finish() && {
        out_ += "}\n";
        return std::move(out_);
    }

private:
    void field(std::string_view key) {
        out_ += out_.size() == 1 ? "\"" : ",\"";
        out_.append(key).append("\":");
    }
    std::string out_ = "{";
};

} // namespace

std::string to_json_line(const audit_event& e) {
    line_writer w;
    w.text("time", protocol::utc_timestamp(e.time));
    w.maybe("principal", e.principal);
    w.maybe("issuer", e.issuer);
    w.text("method", e.method);
    w.maybe("name", e.name);
    w.maybe("upstream", e.upstream);
    if (e.owner)
        w.raw("owner", *e.owner);
    if (e.definition)
        w.raw("definition", *e.definition);
    if (e.hook)
        w.raw("hook", *e.hook);
    w.maybe("decision", e.decision);
    w.maybe("ruleId", e.rule_id);
    if (!e.required_scopes.empty()) {
        boost::json::array scopes;
        for (const auto& s : e.required_scopes)
            scopes.emplace_back(s);
        w.raw("requiredScopes", scopes);
    }
    w.text("outcome", protocol::name(e.outcome));
    w.maybe("error", e.error);
    w.millis("latencyMs", e.latency_ms);
    w.maybe("tenant", e.tenant);
    w.integer("upstreamCalls", e.upstream_calls);
    if (e.items_served)
        w.integer("itemsServed", *e.items_served);
    if (e.usage)
        w.json_text("usage", *e.usage);
    return std::move(w).finish();
}

} // namespace gate::actors
