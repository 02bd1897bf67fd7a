// The typed, immutable model of gate's configuration document (spec: "Configuration document").
// Field names mirror the JSON keys in snake_case. Defaults are the spec's defaults; optional
// means "absent in the document" where the spec gives no default.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::config {

using string_map = std::map<std::string, std::string>;

// {period, upstreamCalls}: allowance of upstream invocations per calendar period.
struct budget {
    std::string period; // "hour" | "day" | "week" | "month" (docs/configuration.md)
    std::int64_t upstream_calls = 0;
};

struct rate_limit {
    std::int64_t requests_per_minute = 0;
};

struct client_auth {
    std::string type; // client_secret_post | client_secret_basic
    std::string secret_ref;
};

// upstreams[].auth
struct upstream_auth {
    std::string strategy = "none"; // none | static | passthrough | client-credentials | token-exchange
    // static
    std::string secret_ref;
    std::string header = "Authorization";
    std::optional<std::string> scheme; // absent: "Bearer" when header is Authorization, else none
    // client-credentials, token-exchange
    std::string token_endpoint;
    std::string client_id;
    std::optional<client_auth> client_auth_;
    std::vector<std::string> scopes;
    std::optional<std::string> resource; // client-credentials
    std::string audience;                // token-exchange
};

struct owner {
    std::optional<std::string> org, team, contact;
};

struct timeouts {
    std::int64_t connect_ms = 5000;
    std::int64_t request_ms = 60000;
};

struct circuit_breaker {
    std::int64_t failure_threshold = 5;
    std::int64_t half_open_after_ms = 30000;
};

enum class protocol_mode { session, auto_, v2026_07_28 };

struct upstream {
    std::string id;
    std::vector<std::string> urls; // `url` is normalised to a one-element list
    bool single_url = true;        // true when the document used `url`
    std::optional<std::string> namespace_;
    protocol_mode protocol = protocol_mode::session;
    std::optional<config::owner> owner;
    string_map labels;
    upstream_auth auth;
    config::timeouts timeouts;
    config::circuit_breaker circuit_breaker;
    std::optional<config::rate_limit> rate_limit;
    std::optional<config::budget> budget;
    std::optional<std::int64_t> health_check_interval_ms;
    std::int64_t cache_ttl_ms = 30000; // negative disables caching
};

struct issuer {
    std::string issuer;
    std::string jwks_uri; // defaults to {issuer}/.well-known/jwks.json
    std::optional<std::string> groups_claim;
    bool exchange_only = false; // mode: "exchange"
};

struct ema {
    std::string idp_issuer;
    std::string idp_jwks_uri; // defaults to {idpIssuer}/.well-known/jwks.json
    std::string signing_key_ref;
    std::int64_t token_ttl_sec = 600;
    std::int64_t token_rate_limit_per_minute = 600;
};

struct auth {
    bool required = false; // mode: disabled | required
    std::optional<std::string> resource;
    std::vector<config::issuer> issuers;
    std::optional<config::ema> ema;
};

using claim_value = std::variant<std::string, double, bool>;

struct subjects {
    std::vector<std::string> subs, groups, issuers;
    std::map<std::string, claim_value> claims;
    bool empty() const { return subs.empty() && groups.empty() && issuers.empty() && claims.empty(); }
};

struct grant {
    std::string server;
    std::vector<std::string> methods; // empty: every method
    std::vector<std::string> names;   // empty: every name; `*` wildcards
};

struct rule {
    std::string id;
    std::optional<config::subjects> subjects; // absent: any principal
    std::vector<grant> allow;
};

struct policy {
    std::string default_decision = "deny"; // allow | deny
    std::vector<rule> rules;
};

struct audit_sink {
    std::string type; // stdout | webhook
    std::string url;
    string_map headers;
};

struct audit {
    std::vector<audit_sink> sinks;
};

struct server_rate_limit {
    std::optional<std::int64_t> requests_per_minute;
    std::optional<std::int64_t> per_principal_per_minute;
};

struct server {
    std::string mcp_path = "/mcp";
    std::vector<std::string> allowed_hosts = {"localhost", "127.0.0.1", "::1"};
    bool allowed_hosts_any = false; // ["*"]
    std::optional<server_rate_limit> rate_limit;
    std::optional<config::budget> budget;
    std::int64_t max_body_bytes = 1048576;
    std::optional<std::string> redis_url; // document value; REDIS_URL is applied by the caller
    bool introspection_enabled = false;
    bool console_enabled = false;
};

struct routing {
    std::string namespace_separator = "__";
    std::int64_t page_size = 200; // negative: one merged page
};

struct discovery {
    std::string url;
    std::int64_t interval_ms = 30000;
    std::optional<std::string> bearer_secret_ref;
    std::vector<std::string> allowed_secret_refs;
    std::vector<std::string> allowed_credential_hosts;
};

struct tenant {
    std::string id;
    config::subjects subjects;
    std::optional<config::budget> budget;
    std::optional<config::rate_limit> rate_limit;
    std::optional<std::vector<std::string>> upstreams; // absent: all
};

struct tracing {
    std::string otlp_endpoint; // normalised: a bare base URL gets /v1/traces
    std::string service_name = "gate";
    double sample_ratio = 1.0;
};

struct document {
    std::vector<upstream> upstreams;
    config::auth auth;
    std::optional<config::policy> policy; // absent: authorization is not enforced
    std::optional<config::audit> audit;
    config::server server;
    config::routing routing;
    std::optional<config::discovery> discovery;
    std::vector<tenant> tenants;
    std::optional<config::tracing> tracing;

    // Passthrough: exactly one upstream and it has no namespace.
    bool passthrough() const { return upstreams.size() == 1 && !upstreams[0].namespace_; }
};

} // namespace gate::config
