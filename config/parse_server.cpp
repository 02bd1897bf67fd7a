#include "config/checks.hpp"
#include "config/parse_sections.hpp"
#include "protocol/name_codec.hpp"
#include "protocol/oauth_scope.hpp"
#include "protocol/tool_name.hpp"

#include <algorithm>

namespace gate::config::detail {

namespace {

// Paths the gateway serves itself; MCP on one of them would shadow or be shadowed by it.
std::string reserved_path_problem(std::string_view path) {
    for (std::string_view exact : {"/health", "/healthz", "/metrics", "/oauth/token"}) {
        if (path == exact) {
            return "is reserved by the gateway's own " + std::string(exact) + " endpoint";
        }
    }
    for (std::string_view tree : {"/api", "/console", "/.well-known"}) {
        if (path == tree || (path.starts_with(tree) && path[tree.size()] == '/')) {
            return "is reserved: the gateway serves " + std::string(tree) + "/... itself";
        }
    }
    return "";
}

void read_mcp_path(const object_view& o, server& s) {
    auto path = o.string("mcpPath");
    if (!path) {
        return;
    }
    if (path->front() != '/') {
        o.fail("mcpPath", quoted(*path) + " must start with \"/\"");
    } else if (path->find_first_of("?# \t\r\n") != std::string::npos) {
        o.fail("mcpPath", quoted(*path) + " must be a plain path, without a query, fragment "
                                          "or whitespace");
    } else if (auto problem = reserved_path_problem(*path); !problem.empty()) {
        o.fail("mcpPath", quoted(*path) + " " + problem);
    } else {
        s.mcp_path = *path;
    }
}

std::string lowercase(std::string s) {
    for (auto& c : s) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return s;
}

// Hostnames match case-insensitively, so entries are kept lowercased; IPv6 literals are kept
// unbracketed, the spelling of the default `::1`.
std::optional<std::string> normalise_host(std::string host) {
    host = lowercase(std::move(host));
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
        return is_ipv6(host) ? std::optional(host) : std::nullopt;
    }
    if (is_ipv4(host) || is_ipv6(host) || is_dns_name(host)) {
        return host;
    }
    return std::nullopt;
}

void read_allowed_hosts(const object_view& o, server& s) {
    auto hosts = o.strings("allowedHosts");
    if (!hosts) {
        return;
    }
    if (hosts->empty()) {
        o.fail("allowedHosts", "must list at least one hostname, or [\"*\"] to disable the "
                               "Host/Origin check; omit it to keep the localhost default");
        return;
    }
    std::vector<std::string> out;
    bool ok = true;
    for (std::size_t i = 0; i < hosts->size(); ++i) {
        std::string ptr = child_pointer(o.pointer_of("allowedHosts"), i);
        const auto& h = (*hosts)[i];
        if (h == "*") {
            if (hosts->size() != 1) {
                o.errors().add(ptr, "\"*\" disables the Host/Origin check and is only allowed as "
                                    "the sole entry");
                ok = false;
            }
            continue;
        }
        if (auto host = normalise_host(h)) {
            out.push_back(*host);
        } else {
            o.errors().add(ptr, quoted(h) + " is not a hostname or IP address; list bare "
                                            "hostnames without scheme or port (the port is "
                                            "stripped before matching)");
            ok = false;
        }
    }
    if (!ok) {
        return;
    }
    s.allowed_hosts_any = hosts->size() == 1 && (*hosts)[0] == "*";
    // Keeping "*" in the list (rather than clearing it) means a consumer that forgets to test
    // allowed_hosts_any still fails closed: no real Host equals "*".
    s.allowed_hosts = s.allowed_hosts_any ? std::vector<std::string>{"*"} : out;
}

void read_rate_limit(const object_view& o, const facts& f, server& s) {
    const auto* v = o.find("rateLimit");
    if (v == nullptr) {
        return;
    }
    object_view r(*v, o.pointer_of("rateLimit"), o.errors(),
                  {"requestsPerMinute", "perPrincipalPerMinute"});
    if (!r.ok()) {
        return;
    }
    server_rate_limit limit;
    limit.requests_per_minute = r.integer("requestsPerMinute", bound::positive);
    limit.per_principal_per_minute = r.integer("perPrincipalPerMinute", bound::positive);
    if (!r.has("requestsPerMinute") && !r.has("perPrincipalPerMinute")) {
        r.fail_here("sets no limit; give requestsPerMinute, perPrincipalPerMinute or both, or "
                    "omit rateLimit");
    }
    if (r.has("perPrincipalPerMinute") && f.auth_mode_known && !f.auth_required) {
        r.fail("perPrincipalPerMinute",
               "needs auth.mode \"required\": it counts each authenticated principal, and "
               "anonymous callers have none (use requestsPerMinute for them)");
    }
    s.rate_limit = limit;
}

// server.publicUrl: an origin browsers reach gate at, which the login pages and the redirect
// URI of user-account upstreams are made from.
void read_public_url(const object_view& o, server& s) {
    auto text = o.string("publicUrl");
    if (!text) {
        return;
    }
    std::string why;
    auto url = parse_url(*text, why);
    if (!url) {
        o.fail("publicUrl", quoted(*text) + " is not a valid URL: it " + why);
    } else if (url->scheme != "http" && url->scheme != "https") {
        o.fail("publicUrl",
               "must be an http:// or https:// URL (got scheme " + quoted(url->scheme) + ")");
    } else if ((!url->path.empty() && url->path != "/") || url->has_query || url->has_fragment ||
               url->has_userinfo) {
        o.fail("publicUrl", "must be an origin only (scheme, host and port, such as "
                            "\"https://gate.example.com\"): gate serves its login pages at "
                            "fixed paths under it");
    } else {
        std::string origin = *text;
        while (!origin.empty() && origin.back() == '/')
            origin.pop_back();
        s.public_url = origin;
    }
}

// server.clientMetadataUrl: gate's OAuth client ID metadata document, its client_id at an
// authorization server that supports them: an https URL with a path (the CIMD draft's rule).
void read_client_metadata_url(const object_view& o, server& s) {
    auto text = o.string("clientMetadataUrl");
    if (!text) {
        return;
    }
    std::string why;
    auto url = parse_url(*text, why);
    if (!url) {
        o.fail("clientMetadataUrl", quoted(*text) + " is not a valid URL: it " + why);
    } else if (url->scheme != "https") {
        o.fail("clientMetadataUrl", "must be an https:// URL: an authorization server fetches "
                                    "it to learn who gate is, and trusts only https");
    } else if (url->path.empty() || url->path == "/" || url->has_query || url->has_fragment ||
               url->has_userinfo) {
        o.fail("clientMetadataUrl",
               "must have a path and no query, fragment or user info, "
               "such as \"https://gate.example.com/oauth/client-metadata.json\"");
    } else {
        s.client_metadata_url = *text;
    }
}

// server.vault: {keyRef, previousKeyRef, operatorScope}: environment variable names (the keys
// themselves are checked with the other secrets at start and reload) and a scope token.
void read_vault(const object_view& parent, server& s) {
    const auto* v = parent.find("vault");
    if (v == nullptr) {
        return;
    }
    object_view o(*v, parent.pointer_of("vault"), parent.errors(),
                  {"keyRef", "previousKeyRef", "operatorScope"});
    if (!o.ok()) {
        return;
    }
    s.vault_key_ref = read_env_name(o, "keyRef");
    s.vault_previous_key_ref = read_env_name(o, "previousKeyRef");
    if (s.vault_previous_key_ref && !s.vault_key_ref && !o.failed("keyRef"))
        o.fail("keyRef", "is required beside previousKeyRef: the key tokens are sealed with now");
    if (auto scope = o.string("operatorScope")) {
        if (!protocol::is_scope_token(*scope))
            o.fail("operatorScope", "is not an OAuth scope token (RFC 6749 3.3: printable, no "
                                    "spaces, quotes or backslashes, not empty)");
        else
            s.vault_operator_scope = std::move(*scope);
    }
}

void read_redis_url(const object_view& o, server& s) {
    auto text = o.string("redisUrl");
    if (!text) {
        return;
    }
    std::string why;
    auto url = parse_url(*text, why);
    if (!url) {
        o.fail("redisUrl", quoted(*text) + " is not a valid URL: it " + why);
    } else if (url->scheme == "rediss") {
        o.fail("redisUrl", "rediss:// (TLS to Redis) is not supported by this version of gate, "
                           "which speaks to Redis in plain text: use a redis:// URL on a "
                           "private network or through a local TLS tunnel (docs/fleet.md)");
    } else if (url->scheme != "redis") {
        o.fail("redisUrl", "must be a redis:// URL (got scheme " + quoted(url->scheme) + ")");
    } else if (!url->path.empty() && url->path != "/" &&
               (url->path.size() > 3 ||
                url->path.find_first_not_of("0123456789", 1) != std::string::npos)) {
        o.fail("redisUrl",
               "the path must be a database number such as /0 (got " + quoted(url->path) + ")");
    } else if (url->has_query || url->has_fragment) {
        o.fail("redisUrl", "must not have a query or fragment");
    } else if (url->has_userinfo) {
        o.fail("redisUrl", "must not embed credentials; the document never holds secrets, so "
                           "give a URL with credentials through the REDIS_URL environment "
                           "variable instead");
    } else {
        s.redis_url = *text;
    }
}

// server.sessions: the table's size and one caller's share of it.
void read_sessions(const object_view& o, server& s) {
    const auto* v = o.find("sessions");
    if (v == nullptr) {
        return;
    }
    object_view section(*v, o.pointer_of("sessions"), o.errors(), {"max", "perPrincipal"});
    if (!section.ok()) {
        return;
    }
    constexpr std::int64_t most = 1000000;
    auto max = section.integer("max", bound::positive);
    if (max && *max > most) {
        section.fail("max", "must be at most " + std::to_string(most) +
                                ": each session holds memory and upstream sessions");
        max.reset();
    }
    if (max) {
        s.sessions.max = *max;
    }
    auto share = section.integer("perPrincipal", bound::positive);
    if (share && *share > s.sessions.max) {
        section.fail("perPrincipal", "is " + std::to_string(*share) + ", more than the " +
                                         std::to_string(s.sessions.max) +
                                         " sessions the table holds (max): one principal's "
                                         "share is part of the table");
        share.reset();
    }
    s.sessions.per_principal = share.value_or(std::min<std::int64_t>(1000, s.sessions.max));
}

std::optional<bool> read_enabled(const object_view& o, std::string_view key) {
    const auto* v = o.find(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    object_view section(*v, o.pointer_of(key), o.errors(), {"enabled"});
    return section.boolean("enabled");
}

// server.introspection: the switch and the public sign-in hints of /api/auth-hint.
void read_introspection(const object_view& o, server& out) {
    const auto* v = o.find("introspection");
    if (v == nullptr) {
        return;
    }
    object_view section(*v, o.pointer_of("introspection"), o.errors(),
                        {"enabled", "clientId", "scopes"});
    if (!section.ok()) {
        return;
    }
    out.introspection_enabled = section.boolean("enabled").value_or(false);
    if (auto id = section.string("clientId")) {
        if (id->empty()) {
            section.fail("clientId", "must not be empty; omit it when there is no public client");
        } else {
            out.hint_client_id = *id;
        }
    }
    if (auto scopes = section.strings("scopes")) {
        for (std::size_t i = 0; i < scopes->size(); ++i) {
            const auto& s = (*scopes)[i];
            if (s.empty() || s.find_first_of(" \"\\") != std::string::npos) {
                section.errors().add(child_pointer(section.pointer_of("scopes"), i),
                                     "is not an OAuth scope token (RFC 6749 3.3: no spaces, "
                                     "quotes or backslashes, not empty)");
            }
        }
        out.hint_scopes = std::move(*scopes);
    }
}

} // namespace

void parse_server(const object_view& root, const facts& f, server& out) {
    const auto* v = root.find("server");
    if (v == nullptr) {
        return;
    }
    object_view o(*v, root.pointer_of("server"), root.errors(),
                  {"mcpPath", "allowedHosts", "rateLimit", "budget", "maxBodyBytes", "sessions",
                   "redisUrl", "introspection", "console", "publicUrl", "vault",
                   "clientMetadataUrl", "info", "instructions", "toolSearch"});
    if (!o.ok()) {
        return;
    }
    read_mcp_path(o, out);
    read_allowed_hosts(o, out);
    read_rate_limit(o, f, out);
    out.budget = parse_budget(o, "budget");
    out.max_body_bytes = o.integer("maxBodyBytes", bound::positive).value_or(1048576);
    read_sessions(o, out);
    read_redis_url(o, out);
    read_public_url(o, out);
    read_client_metadata_url(o, out);
    read_vault(o, out);
    parse_federation_identity(o, out);
    parse_tool_search(o, out);
    read_introspection(o, out);
    out.console_enabled = read_enabled(o, "console").value_or(false);
    std::string introspection_ptr = child_pointer(o.pointer_of("introspection"), "enabled");
    if (out.console_enabled && !out.introspection_enabled &&
        !o.errors().failed(introspection_ptr)) {
        o.errors().add(child_pointer(o.pointer_of("console"), "enabled"),
                       "needs server.introspection.enabled: the console page shows what "
                       "/api/federation reports and has no other data source");
    }
}

namespace {

// Shorter maximums leave an alias too little of the name to be recognised by.
constexpr std::int64_t min_name_length = 16;

// A maximum name length must leave every namespaced upstream room for one character of its
// own and the alias suffix, or its long names could not be shortened at all.
void read_max_name_length(const object_view& o, const std::vector<upstream>& upstreams,
                          routing& out) {
    auto n = o.integer("maxNameLength");
    if (!n)
        return;
    constexpr auto most = static_cast<std::int64_t>(protocol::max_tool_name);
    if (*n < min_name_length || *n > most) {
        o.fail("maxNameLength", "must be between " + std::to_string(min_name_length) + " and " +
                                    std::to_string(most) +
                                    " (the specification's longest name); leave it out to list "
                                    "names as long as upstreams make them");
        return;
    }
    for (std::size_t i = 0; i < upstreams.size(); ++i) {
        const auto& ns = upstreams[i].namespace_;
        if (!ns)
            continue;
        auto prefix = ns->size() + out.namespace_separator.size();
        auto least = static_cast<std::int64_t>(prefix + protocol::alias_suffix + 1);
        if (*n < least) {
            o.fail("maxNameLength",
                   "is " + std::to_string(*n) + ", but upstreams[" + std::to_string(i) +
                       "].namespace " + quoted(*ns) + " with the separator " +
                       quoted(out.namespace_separator) + " takes " + std::to_string(prefix) +
                       " characters of every name, leaving no room for a shortened name and "
                       "its " +
                       std::to_string(protocol::alias_suffix) +
                       "-character suffix: raise it to at least " + std::to_string(least) +
                       " or shorten the namespace");
            return;
        }
    }
    out.max_name_length = static_cast<std::size_t>(*n);
}

} // namespace

void parse_routing(const object_view& root, const std::vector<upstream>& upstreams, routing& out) {
    const auto* v = root.find("routing");
    if (v == nullptr) {
        return;
    }
    object_view o(*v, root.pointer_of("routing"), root.errors(),
                  {"namespaceSeparator", "pageSize", "maxNameLength"});
    if (auto sep = o.string("namespaceSeparator", true)) {
        if (auto problem = separator_problem(*sep); !problem.empty()) {
            o.fail("namespaceSeparator", problem);
        } else {
            out.namespace_separator = *sep;
        }
    }
    if (const auto* page = o.find("pageSize"); page != nullptr) {
        auto n = o.integer("pageSize");
        if (n && *n == 0) {
            o.fail("pageSize", "must not be 0: use a positive page size, or a negative value to "
                               "serve one merged page");
        } else if (n) {
            out.page_size = *n;
        }
    }
    if (o.find("maxNameLength") != nullptr)
        read_max_name_length(o, upstreams, out);
}

} // namespace gate::config::detail
