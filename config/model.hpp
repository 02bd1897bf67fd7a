// The typed, immutable model of gate's configuration document (spec: "Configuration document").
// Field names mirror the JSON keys in snake_case. Defaults are the spec's defaults; optional
// means "absent in the document" where the spec gives no default. Equality is by value, so a
// reload can tell which upstreams and sections changed.
#pragma once

#include <boost/describe/class.hpp>
#include <cstdint>
#include <map>
#include <memory>
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

    bool operator==(const budget&) const = default;
};

struct rate_limit {
    std::int64_t requests_per_minute = 0;

    bool operator==(const rate_limit&) const = default;
};

struct client_auth {
    std::string type; // client_secret_post | client_secret_basic
    std::string secret_ref;

    bool operator==(const client_auth&) const = default;
};

// upstreams[].auth
struct upstream_auth {
    // none | static | passthrough | client-credentials | token-exchange | user-account
    std::string strategy = "none";
    // static
    std::string secret_ref;
    std::string header = "Authorization";
    std::optional<std::string> scheme; // absent: "Bearer" when header is Authorization, else none
    // client-credentials, token-exchange
    std::string token_endpoint;
    std::string client_id;
    std::optional<client_auth> client_auth_;
    std::vector<std::string> scopes;
    std::optional<std::string> resource; // client-credentials, user-account
    std::string audience;                // token-exchange
    // user-account: the upstream's authorization server, when not discovered through its
    // protected resource metadata (RFC 9728).
    std::optional<std::string> authorization_server;

    // Whether each caller's request carries that caller's own credential (passthrough,
    // token-exchange, user-account): the upstream may serve each user differently, so no
    // session, list or cache made with one caller's credential serves another. The one
    // place the strategies that do are named.
    bool per_caller() const {
        return strategy == "passthrough" || strategy == "token-exchange" ||
               strategy == "user-account";
    }

    bool operator==(const upstream_auth&) const = default;
};

struct owner {
    std::optional<std::string> org, team, contact;

    bool operator==(const owner&) const = default;
};

struct timeouts {
    std::int64_t connect_ms = 5000;
    std::int64_t request_ms = 60000;

    bool operator==(const timeouts&) const = default;
};

struct circuit_breaker {
    std::int64_t failure_threshold = 5;
    std::int64_t half_open_after_ms = 30000;

    bool operator==(const circuit_breaker&) const = default;
};

enum class protocol_mode { session, auto_, v2026_07_28 };

// upstreams[].toolLimits[]: rate limits of the upstream's tools whose own name matches one of
// `names` (`*` wildcards), for everyone together and for each principal; at least one is set.
struct tool_limit {
    std::vector<std::string> names;
    std::optional<std::int64_t> requests_per_minute;
    std::optional<std::int64_t> per_principal_per_minute;

    bool operator==(const tool_limit&) const = default;
};

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
    std::int64_t cache_ttl_ms = 30000;        // negative disables caching
    bool discovered = false;                  // served by the discovery source, not the document
    std::vector<tool_limit> tool_limits = {}; // tools/call only (stage 6)
    // pinDefinitions: off | warn | block; absent: definitions.pin.
    std::optional<std::string> pin_definitions = std::nullopt;

    bool operator==(const upstream&) const = default;
};

struct issuer {
    std::string issuer;
    std::string jwks_uri; // defaults to {issuer}/.well-known/jwks.json
    std::optional<std::string> groups_claim;
    bool exchange_only = false; // mode: "exchange"

    bool operator==(const config::issuer&) const = default;
};

struct ema {
    std::string idp_issuer;
    std::string idp_jwks_uri; // defaults to {idpIssuer}/.well-known/jwks.json
    std::string signing_key_ref;
    std::int64_t token_ttl_sec = 600;
    std::int64_t token_rate_limit_per_minute = 600;

    bool operator==(const ema&) const = default;
};

// auth.introspection: tokens gate cannot read as a JWT (opaque ones) asked about at an
// RFC 7662 endpoint, as a client of it.
struct introspection {
    std::string url;
    std::string client_id;
    client_auth auth;
    // The issuer its principals are named by (and the answer's `iss` must be, when it names
    // one); absent: the answer's `iss`, else the endpoint's URL.
    std::optional<std::string> issuer;
    std::int64_t cache_seconds = 60; // an answer is believed at most this long

    bool operator==(const introspection&) const = default;
};

struct auth {
    bool required = false; // mode: disabled | required
    std::optional<std::string> resource;
    std::vector<config::issuer> issuers;
    std::optional<config::ema> ema;
    std::optional<config::introspection> introspection;

    bool operator==(const auth&) const = default;
};

using claim_value = std::variant<std::string, double, bool>;

struct subjects {
    std::vector<std::string> subs, groups, issuers;
    std::map<std::string, claim_value> claims;
    // Every one of these must be among the token's scopes (`scope` or `scp`); policy rules
    // only (a tenant is not chosen by what a token may do).
    std::vector<std::string> scopes = {};
    bool empty() const {
        return subs.empty() && groups.empty() && issuers.empty() && claims.empty() &&
               scopes.empty();
    }

    bool operator==(const subjects&) const = default;
};

// A condition on one value of a call's arguments (policy entries' `arguments`), at an RFC 6901
// pointer into them: every test given must hold.
struct argument_condition {
    std::string pointer;
    std::optional<claim_value> equals;
    std::vector<claim_value> in; // empty: no membership test
    std::optional<std::string> prefix;
    std::optional<std::string> pattern; // RE2, matched against the whole string
    std::optional<double> min, max;     // inclusive
    std::optional<bool> present;
    // How a string value is read before equals, in, prefix and pattern test it: as a path,
    // lexically normalized ("normalize": "path"; a ".." above its start fails a grant and holds
    // in a deny), and with ASCII letters of either case alike ("ignoreCase").
    bool normalize_path = false;
    bool ignore_case = false;

    bool operator==(const argument_condition&) const = default;
};

// An entry of a rule's `allow` or `deny`.
struct grant {
    std::string server;                             // `*` (every upstream) in deny entries only
    std::vector<std::string> methods;               // empty: every method
    std::vector<std::string> names;                 // empty: every name; `*` wildcards
    std::vector<argument_condition> arguments = {}; // all must hold
    // Tool annotation hint (readOnlyHint, ...) to the value it must have, as the upstream
    // declared it (MCP's default when it did not).
    std::map<std::string, bool> annotations = {};

    bool operator==(const grant&) const = default;
};

struct rule {
    std::string id;
    std::optional<config::subjects> subjects; // absent: any principal
    std::vector<grant> allow;
    std::vector<grant> deny = {}; // wins over every allow

    bool operator==(const rule&) const = default;
};

// An outside decision point gate asks after its own rules allowed (docs/decision-hook.md): it
// may deny what they allow, never allow what they deny.
struct decision_hook {
    std::string url;
    std::optional<std::string> bearer_secret_ref; // env var holding a bearer token for it
    std::int64_t timeout_ms = 1000;
    std::string on_error = "deny"; // deny | allow: a timeout, a refusal or nonsense
    bool at_call = true, at_result = false, at_server_request = false; // `stages`
    bool send_arguments = false, send_result = false;                  // `include`
    std::int64_t max_concurrent = 64;
    std::int64_t cache_ttl_ms = 0; // 0: every invocation is asked

    bool operator==(const decision_hook&) const = default;
};

struct policy {
    std::string default_decision = "deny"; // allow | deny
    std::vector<rule> rules;
    std::optional<config::decision_hook> decision_hook = {};

    bool operator==(const policy&) const = default;
};

struct audit_sink {
    std::string type; // stdout | webhook
    std::string url;
    string_map headers;

    bool operator==(const audit_sink&) const = default;
};

struct audit {
    std::vector<audit_sink> sinks;

    bool operator==(const audit&) const = default;
};

struct server_rate_limit {
    std::optional<std::int64_t> requests_per_minute;
    std::optional<std::int64_t> per_principal_per_minute;

    bool operator==(const server_rate_limit&) const = default;
};

// The downstream session table (docs/sessions.md, "The session table"): its size and one
// caller's share of it (a principal, or an anonymous client address).
struct server_sessions {
    std::int64_t max = 10000;
    std::int64_t per_principal = 1000; // absent: 1000, or max when smaller

    bool operator==(const server_sessions&) const = default;
};

// How a namespaced federation presents itself in initialize and server/discover (server.info
// and server.instructions, docs/configuration.md); absent, it is "gate" at gate's version.
struct icon {
    std::string src; // a data: image, or an https URL
    std::optional<std::string> mime_type;
    std::vector<std::string> sizes;
    std::optional<std::string> theme; // light | dark

    bool operator==(const icon&) const = default;
};

struct federation_info {
    std::optional<std::string> name, title, version, website_url; // absent: gate's own
    std::vector<config::icon> icons;

    bool operator==(const federation_info&) const = default;
};

struct federation_instructions {
    std::optional<std::string> text;
    // Each upstream's own instructions added under a line naming it and its namespace.
    bool from_upstreams = false;

    bool operator==(const federation_instructions&) const = default;
};

// server.toolSearch (docs/tool-search.md): the callers whose tools/list holds gate's search and
// selection tools and the tools their session selected, instead of every tool.
struct tool_search {
    bool enabled = false;
    std::optional<config::subjects> subjects; // absent: every caller, anonymous ones too

    bool operator==(const tool_search&) const = default;
};

struct server {
    std::string mcp_path = "/mcp";
    std::vector<std::string> allowed_hosts = {"localhost", "127.0.0.1", "::1"};
    bool allowed_hosts_any = false; // ["*"]
    std::optional<server_rate_limit> rate_limit;
    std::optional<config::budget> budget;
    std::int64_t max_body_bytes = 1048576;
    server_sessions sessions;
    std::optional<std::string> redis_url; // document value; REDIS_URL is applied by the caller
    bool introspection_enabled = false;
    // Public sign-in hints of /api/auth-hint (server.introspection.clientId, .scopes).
    std::optional<std::string> hint_client_id;
    std::vector<std::string> hint_scopes;
    bool console_enabled = false;
    // Where browsers reach gate (scheme, host, port; no path): the base of the pages a user
    // is sent to for an upstream that takes each user's own account, and of its redirect URI.
    std::optional<std::string> public_url;
    // gate's OAuth client ID metadata document (CIMD), used as its client_id where an
    // authorization server supports them; absent: <publicUrl>/oauth/client-metadata.json when
    // publicUrl is https, else none (gate registers instead).
    std::optional<std::string> client_metadata_url;
    // server.vault: the key users' tokens are sealed with in the shared store (a secret
    // reference), and the one before it, still read after a rotation.
    std::optional<std::string> vault_key_ref, vault_previous_key_ref;
    // server.vault.operatorScope: the scope whose holders list and revoke every principal's
    // connections (GET and DELETE /api/accounts); none: nobody may.
    std::optional<std::string> vault_operator_scope;
    federation_info info;
    federation_instructions instructions;
    config::tool_search tool_search;

    bool operator==(const server&) const = default;
};

struct routing {
    std::string namespace_separator = "__";
    std::int64_t page_size = 200; // negative: one merged page
    // Tool and prompt names longer than this are listed as short aliases (0: never;
    // protocol/name_codec.hpp).
    std::size_t max_name_length = 0;

    bool operator==(const routing&) const = default;
};

struct discovery {
    std::string url;
    std::int64_t interval_ms = 30000;
    std::optional<std::string> bearer_secret_ref;
    // Containment (config/discovery_containment): what a discovered upstream may use. Empty
    // allows nothing: no strategy but "none", no secret, no host to send credentials to.
    std::vector<std::string> allowed_strategies;
    std::vector<std::string> allowed_secret_refs;
    std::vector<std::string> allowed_credential_hosts;

    bool operator==(const discovery&) const = default;
};

struct tenant {
    std::string id;
    config::subjects subjects;
    std::optional<config::budget> budget;
    std::optional<config::rate_limit> rate_limit;
    std::optional<std::vector<std::string>> upstreams; // absent: all

    bool operator==(const tenant&) const = default;
};

struct tracing {
    std::string otlp_endpoint; // normalised: a bare base URL gets /v1/traces
    std::string service_name = "gate";
    double sample_ratio = 1.0;

    bool operator==(const tracing&) const = default;
};

// definitions: pinned tool definitions (docs/configuration.md, "Pinned definitions").
struct definitions {
    std::string pin = "off"; // off | warn | block: the upstreams' default
    std::optional<std::string> lock_file;
    // The lock file's digests, read when the document is: upstream id -> tool -> digest.
    std::map<std::string, std::map<std::string, std::string>> lock;

    bool operator==(const definitions&) const = default;
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
    config::definitions definitions;
    // The JSON text this document was read from, which discovery merges discovered upstreams
    // into. Not part of what the document means: equal documents may come from other text.
    struct source_text {
        std::shared_ptr<const std::string> text;
        std::string base_dir; // the config file's directory (relative paths), or empty
        bool operator==(const source_text&) const { return true; }
    } source;

    std::size_t discovered_count() const {
        std::size_t n = 0;
        for (const auto& u : upstreams)
            n += u.discovered;
        return n;
    }

    // Passthrough: exactly one upstream and it has no namespace.
    bool passthrough() const { return upstreams.size() == 1 && !upstreams[0].namespace_; }

    bool operator==(const document&) const = default;
};

// Described for the actor messages that carry it (actors/message_inspection.hpp).
BOOST_DESCRIBE_STRUCT(budget, (), (period, upstream_calls))

} // namespace gate::config
