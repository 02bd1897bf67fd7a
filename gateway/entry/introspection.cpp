#include "gateway/entry/introspection.hpp"

#include "gateway/entry/health.hpp"
#include "process/version.hpp"
#include "protocol/utc_timestamp.hpp"

namespace gate::gateway {

namespace json = boost::json;

namespace {

const char* protocol_name(config::protocol_mode m) {
    switch (m) {
    case config::protocol_mode::session:
        return "session";
    case config::protocol_mode::auto_:
        return "auto";
    case config::protocol_mode::v2026_07_28:
        return "2026-07-28";
    }
    return "session";
}

json::array strings(const std::vector<std::string>& v) {
    json::array out;
    for (const auto& s : v)
        out.emplace_back(s);
    return out;
}

json::object limits(const std::optional<config::rate_limit>& rate,
                    const std::optional<config::budget>& budget) {
    json::object out;
    if (rate)
        out["requestsPerMinute"] = rate->requests_per_minute;
    if (budget)
        out["budget"] = {{"period", budget->period}, {"upstreamCalls", budget->upstream_calls}};
    return out;
}

const json::object* health_of(const json::object& health, const std::string& id) {
    const auto* ups = health.if_contains("upstreams");
    if (!ups || !ups->is_array())
        return nullptr;
    for (const auto& u : ups->get_array())
        if (const auto* o = u.if_object())
            if (const auto* i = o->if_contains("id"); i && i->is_string() && i->get_string() == id)
                return o;
    return nullptr;
}

json::object upstream_entry(const config::upstream& u, const json::object& health,
                            const json::object* identity) {
    json::object e{{"id", u.id},
                   {"source", u.discovered ? "discovered" : "static"},
                   {"credential", u.auth.strategy},
                   {"protocol", protocol_name(u.protocol)},
                   {"urls", strings(u.urls)}};
    if (u.namespace_)
        e["namespace"] = *u.namespace_;
    if (identity && !identity->empty())
        e["server"] = *identity;
    if (u.owner)
        e["owner"] = owner_json(*u.owner);
    if (!u.labels.empty())
        e["labels"] = labels_json(u.labels);
    if (auto g = limits(u.rate_limit, u.budget); !g.empty())
        e["governance"] = std::move(g);
    if (const auto* h = health_of(health, u.id)) {
        json::object health_entry;
        for (auto key : {"status", "latencyMs", "error"})
            if (const auto* v = h->if_contains(key))
                health_entry[key] = *v;
        e["health"] = std::move(health_entry);
        if (const auto* b = h->if_contains("breaker"))
            e["breaker"] = *b;
        if (const auto* eps = h->if_contains("endpoints"); eps && eps->is_array()) {
            // Rotation state by URL (the health report leaves URLs out when auth is on).
            json::array list;
            const auto& arr = eps->get_array();
            for (std::size_t i = 0; i < arr.size() && i < u.urls.size(); ++i) {
                json::object o{{"url", u.urls[i]}};
                if (const auto* in = arr[i].is_object()
                                         ? arr[i].get_object().if_contains("inRotation")
                                         : nullptr)
                    o["inRotation"] = *in;
                list.push_back(std::move(o));
            }
            e["endpoints"] = std::move(list);
        }
    }
    return e;
}

// What a rule's entries cover; of their conditions, which kinds they test (values such as an
// argument's expected text may be private).
json::array entries_shape(const std::vector<config::grant>& entries) {
    json::array out;
    for (const auto& a : entries) {
        json::object g{{"server", a.server}};
        if (!a.methods.empty())
            g["methods"] = strings(a.methods);
        if (!a.names.empty())
            g["names"] = strings(a.names);
        if (!a.arguments.empty())
            g["arguments"] = a.arguments.size();
        if (!a.annotations.empty()) {
            json::array hints;
            for (const auto& [hint, value] : a.annotations)
                hints.emplace_back(hint);
            g["annotations"] = std::move(hints);
        }
        out.push_back(std::move(g));
    }
    return out;
}

// An entry naming an upstream the viewer's tenant does not see is left out: its id is the
// other tenant's business (`*` names none).
using upstream_filter = std::function<bool(std::string_view)>;

json::object policy_shape(const std::optional<config::policy>& policy,
                          const upstream_filter& sees) {
    if (!policy)
        return {{"enforced", false}};
    auto seen = [&](const std::vector<config::grant>& entries) {
        std::vector<config::grant> out;
        for (const auto& g : entries)
            if (g.server == "*" || sees(g.server))
                out.push_back(g);
        return out;
    };
    json::array rules;
    for (const auto& r : policy->rules) {
        // Who a rule is for, by kind of selector only: the names of people and groups are
        // not the topology's business.
        json::array selectors; // empty: any principal
        if (r.subjects) {
            if (!r.subjects->subs.empty())
                selectors.emplace_back("subs");
            if (!r.subjects->groups.empty())
                selectors.emplace_back("groups");
            if (!r.subjects->issuers.empty())
                selectors.emplace_back("issuers");
            if (!r.subjects->claims.empty())
                selectors.emplace_back("claims");
            if (!r.subjects->scopes.empty())
                selectors.emplace_back("scopes");
        }
        json::object rule{{"id", r.id}, {"subjects", std::move(selectors)}};
        rule["allow"] = entries_shape(seen(r.allow));
        if (!r.deny.empty())
            rule["deny"] = entries_shape(seen(r.deny));
        rules.push_back(std::move(rule));
    }
    return {{"enforced", true},
            {"defaultDecision", policy->default_decision},
            {"rules", std::move(rules)}};
}

// `discovered`: the discovered upstreams the viewer is shown; `sees_all`: whether it is shown
// every upstream (a poll's problem may name any).
json::object federation_discovery(const federation_facts& f, std::size_t discovered,
                                  bool sees_all) {
    const auto& doc = f.doc;
    json::object discovery{{"configured", doc.discovery.has_value()}};
    if (doc.discovery) {
        discovery["url"] = doc.discovery->url;
        discovery["intervalMs"] = doc.discovery->interval_ms;
        discovery["discovered"] = discovered;
        if (f.discovery && !f.discovery->last_outcome.empty()) {
            discovery["lastOutcome"] = f.discovery->last_outcome;
            discovery["lastAt"] = protocol::utc_timestamp(f.discovery->last_at);
            discovery["failing"] = f.discovery->outage;
            if (!f.discovery->last_problem.empty() && sees_all)
                discovery["lastProblem"] = f.discovery->last_problem;
        }
    }
    return discovery;
}

} // namespace

json::object server_identity(const json::object& handshake) {
    json::object out;
    if (const auto* info = handshake.if_contains("serverInfo"); info && info->is_object())
        for (auto key : {"name", "title", "version", "websiteUrl", "icons"})
            if (const auto* v = info->get_object().if_contains(key))
                out[key] = *v;
    if (const auto* v = handshake.if_contains("protocolVersion"); v && v->is_string())
        out["protocolVersion"] = *v;
    return out;
}

json::object federation_snapshot(const federation_facts& f) {
    const auto& doc = f.doc;
    upstream_filter sees = f.sees;
    if (!sees)
        sees = [](std::string_view) { return true; };
    json::array upstreams;
    std::size_t discovered = 0;
    for (std::size_t i = 0; i < doc.upstreams.size(); ++i) {
        if (!sees(doc.upstreams[i].id))
            continue; // as if not configured: not its URL, owner, health, nor its count
        discovered += doc.upstreams[i].discovered;
        upstreams.push_back(upstream_entry(
            doc.upstreams[i], f.health,
            f.identities && i < f.identities->size() ? &(*f.identities)[i] : nullptr));
    }
    json::array sinks;
    if (doc.audit)
        for (const auto& s : doc.audit->sinks)
            sinks.emplace_back(s.type);
    json::object tracing{{"enabled", doc.tracing.has_value()}};
    if (doc.tracing) {
        tracing["endpoint"] = doc.tracing->otlp_endpoint;
        tracing["serviceName"] = doc.tracing->service_name;
        tracing["sampleRatio"] = doc.tracing->sample_ratio;
    }
    json::object viewer{{"authenticated", f.viewer != nullptr}};
    if (f.viewer) {
        viewer["principal"] = f.viewer->subject;
        viewer["issuer"] = f.viewer->issuer;
    }
    if (f.tenant) {
        viewer["tenant"] = *f.tenant;
        for (const auto& t : doc.tenants)
            if (t.id == *f.tenant) {
                auto g = limits(t.rate_limit, t.budget);
                if (t.upstreams)
                    g["upstreams"] = strings(*t.upstreams);
                viewer["governance"] = std::move(g);
            }
    }
    json::object server_limits;
    if (const auto& r = doc.server.rate_limit) {
        if (r->requests_per_minute)
            server_limits["requestsPerMinute"] = *r->requests_per_minute;
        if (r->per_principal_per_minute)
            server_limits["perPrincipalPerMinute"] = *r->per_principal_per_minute;
    }
    if (const auto& b = doc.server.budget)
        server_limits["budget"] = {{"period", b->period}, {"upstreamCalls", b->upstream_calls}};
    std::size_t up = 0, shown = upstreams.size();
    for (const auto& u : upstreams)
        if (const auto* h = u.get_object().if_contains("health"))
            if (const auto* s = h->get_object().if_contains("status"))
                up += s->is_string() && s->get_string() == "up";
    return {
        {"gateway",
         {{"version", std::string(process::gate_release)},
          {"snapshot", f.snapshot},
          {"mode", doc.passthrough() ? "passthrough" : "namespaced"},
          {"mcpPath", doc.server.mcp_path},
          {"auth", doc.auth.required ? "required" : "disabled"}}},
        {"summary", {{"upstreams", shown}, {"up", up}, {"discovered", discovered}}},
        {"upstreams", std::move(upstreams)},
        {"discovery", federation_discovery(f, discovered, shown == doc.upstreams.size())},
        {"policy", policy_shape(doc.policy, sees)},
        {"governance", std::move(server_limits)},
        {"audit", {{"sinks", std::move(sinks)}}},
        {"sharedState",
         {{"backend", f.shared_store ? "redis" : "in-process"},
          {"up", !f.shared_store || f.shared_store_up}}},
        {"tracing", std::move(tracing)},
        {"viewer", std::move(viewer)},
    };
}

json::object auth_hint(const config::document& doc, const std::optional<std::string>& own_issuer) {
    json::object out{{"authRequired", doc.auth.required}};
    std::optional<std::string> issuer = own_issuer;
    if (!issuer)
        for (const auto& i : doc.auth.issuers)
            if (!i.exchange_only) {
                issuer = i.issuer;
                break;
            }
    out["issuer"] = issuer ? json::value(*issuer) : json::value(nullptr);
    out["clientId"] =
        doc.server.hint_client_id ? json::value(*doc.server.hint_client_id) : json::value(nullptr);
    out["scopes"] = strings(doc.server.hint_scopes);
    out["resource"] = doc.auth.resource ? json::value(*doc.auth.resource) : json::value(nullptr);
    return out;
}

} // namespace gate::gateway
