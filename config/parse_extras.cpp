// Discovery, tenants and tracing: the sections that extend the static federation.
#include "config/checks.hpp"
#include "config/parse_sections.hpp"

#include <map>

namespace gate::config::detail {

namespace {

// An absent list and an empty one both allow nothing (the containment is closed unless the
// configuration names what it opens), so `[]` is accepted and means what absence means.
std::vector<std::string> read_allowlist(const object_view& o, std::string_view key,
                                        bool (*valid)(std::string_view), std::string_view what) {
    auto items = o.strings(key);
    if (!items) {
        return {};
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < items->size(); ++i) {
        const auto& item = (*items)[i];
        if (!valid(item)) {
            o.errors().add(child_pointer(o.pointer_of(key), i),
                           quoted(item) + " is not " + std::string(what));
        } else {
            out.push_back(item);
        }
    }
    return out;
}

bool auth_strategy(std::string_view s) {
    return s == "none" || s == "static" || s == "passthrough" || s == "client-credentials" ||
           s == "token-exchange";
}

bool credential_host(std::string_view s) {
    return is_dns_name(s) || is_ipv4(s) || is_ipv6(s);
}

std::string lowercase(std::string s) {
    for (auto& c : s) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return s;
}

} // namespace

void parse_discovery(const object_view& root, std::optional<discovery>& out) {
    const auto* v = root.find("discovery");
    if (v == nullptr) {
        return;
    }
    object_view o(*v, root.pointer_of("discovery"), root.errors(),
                  {"url", "intervalMs", "bearerSecretRef", "allowedStrategies", "allowedSecretRefs",
                   "allowedCredentialHosts"});
    if (!o.ok()) {
        return;
    }
    discovery d;
    o.require("url", "the http(s) URL serving the {upstreams: [...]} document");
    d.url = read_http_url(o, "url", false).value_or("");
    d.interval_ms = o.integer("intervalMs", bound::positive).value_or(30000);
    d.bearer_secret_ref = read_env_name(o, "bearerSecretRef");
    d.allowed_strategies = read_allowlist(o, "allowedStrategies", &auth_strategy,
                                          "an auth strategy (\"none\", \"static\", "
                                          "\"passthrough\", \"client-credentials\", "
                                          "\"token-exchange\")");
    d.allowed_secret_refs = read_allowlist(o, "allowedSecretRefs", &is_env_name,
                                           "an environment variable name (letters, digits and "
                                           "underscores, not starting with a digit)");
    d.allowed_credential_hosts =
        read_allowlist(o, "allowedCredentialHosts", &credential_host,
                       "a hostname or IP address (exact host, no scheme, port or wildcard)");
    // Hostnames compare case-insensitively; environment variable names do not.
    for (auto& host : d.allowed_credential_hosts) {
        host = lowercase(host);
    }
    out = std::move(d);
}

void parse_tenants(const object_view& root, const facts& f, std::vector<tenant>& out) {
    const auto* arr = root.array("tenants");
    if (arr == nullptr) {
        return;
    }
    std::map<std::string, std::string> seen;
    std::string base = root.pointer_of("tenants");
    if (!arr->empty() && f.auth_mode_known && !f.auth_required) {
        root.fail("tenants", "need auth.mode \"required\": a tenant is resolved from a verified "
                             "principal's claims, and anonymous callers have none");
    }
    for (std::size_t i = 0; i < arr->size(); ++i) {
        object_view o((*arr)[i], child_pointer(base, i), root.errors(),
                      {"id", "subjects", "budget", "rateLimit", "upstreams"});
        if (!o.ok()) {
            continue;
        }
        tenant t;
        o.require("id", "the tenant id (lowercase letters, digits and hyphens)");
        if (auto id = o.string("id")) {
            if (!is_slug(*id)) {
                o.fail("id", quoted(*id) + " is not a valid tenant id; use lowercase letters, "
                                           "digits and hyphens, starting with a letter or digit");
            } else if (auto [it, fresh] = seen.emplace(*id, o.pointer_of("id")); !fresh) {
                o.fail("id", "duplicate tenant id " + quoted(*id) + " (already used by " +
                                 it->second + "); ids must be unique");
            } else {
                t.id = *id;
            }
        }
        if (auto s = parse_subjects(o, "subjects", true)) {
            t.subjects = std::move(*s);
        }
        t.budget = parse_budget(o, "budget");
        t.rate_limit = parse_rate_limit(o, "rateLimit");
        if (auto ids = o.strings("upstreams")) {
            for (std::size_t j = 0; j < ids->size(); ++j) {
                check_upstream_ref(f, o.errors(), child_pointer(o.pointer_of("upstreams"), j),
                                   (*ids)[j]);
            }
            t.upstreams = std::move(*ids);
        }
        out.push_back(std::move(t));
    }
}

void parse_tracing(const object_view& root, std::optional<tracing>& out) {
    const auto* v = root.find("tracing");
    if (v == nullptr) {
        return;
    }
    object_view o(*v, root.pointer_of("tracing"), root.errors(),
                  {"otlpEndpoint", "serviceName", "sampleRatio"});
    if (!o.ok()) {
        return;
    }
    tracing t;
    o.require("otlpEndpoint", "the OTLP/HTTP collector URL spans are exported to");
    if (auto endpoint = read_http_url(o, "otlpEndpoint", false)) {
        std::string why;
        auto url = parse_url(*endpoint, why);
        t.otlp_endpoint = *endpoint;
        // A bare collector address gets the standard traces path; an explicit path is kept.
        if (url && (url->path.empty() || url->path == "/")) {
            auto cut = endpoint->find_first_of("?", endpoint->find("://") + 3);
            std::string head = endpoint->substr(0, cut);
            if (!head.empty() && head.back() == '/') {
                head.pop_back();
            }
            std::string tail = cut == std::string::npos ? "" : endpoint->substr(cut);
            t.otlp_endpoint = head + "/v1/traces" + tail;
        }
    }
    t.service_name = o.string("serviceName").value_or("gate");
    if (auto ratio = o.number("sampleRatio")) {
        if (*ratio < 0.0 || *ratio > 1.0) {
            o.fail("sampleRatio", "must be between 0 and 1 inclusive (got " +
                                      json::serialize(*o.find("sampleRatio")) + ")");
        } else {
            t.sample_ratio = *ratio;
        }
    }
    out = std::move(t);
}

} // namespace gate::config::detail
