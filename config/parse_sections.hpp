// Section parsers. Each reads one part of the document into the model and reports every
// structural and cross-field problem it can see from there.
#pragma once

#include "config/json_view.hpp"
#include "config/model.hpp"

#include <set>
#include <string>

namespace gate::config::detail {

// Facts about the whole document that rules in one section depend on, read tolerantly
// before the sections are parsed. The *_known flags are false when the underlying value is
// itself invalid, so dependent rules stay quiet rather than echo that error.
struct facts {
    std::size_t upstream_count = 0;
    std::set<std::string, std::less<>> upstream_ids; // every string id, valid or not
    bool auth_required = false;
    bool auth_mode_known = true;
    std::string separator = "__";
    bool separator_known = true;
    bool discovery = false;
    bool public_url = false; // server.publicUrl is given
};

facts gather_facts(const json::value& root);

void parse_upstreams(const object_view& root, const facts& f, std::vector<upstream>& out);
void parse_upstream_auth(const object_view& parent, const facts& f, upstream_auth& out);
void parse_auth(const object_view& root, config::auth& out);
void parse_policy(const object_view& root, const facts& f, std::optional<policy>& out);
// policy.decisionHook (config/parse_decision_hook.cpp), read inside the policy section.
void parse_decision_hook(const object_view& policy, std::optional<decision_hook>& out);
void parse_audit(const object_view& root, std::optional<audit>& out);
void parse_server(const object_view& root, const facts& f, server& out);
// server.info and server.instructions (config/parse_identity.cpp), read inside the server section.
void parse_federation_identity(const object_view& server_section, server& out);
// Refuses them for passthrough, which presents its one upstream as it is.
void check_federation_identity(const document& doc, sink& errors);
// server.toolSearch (config/parse_tool_search.cpp), read inside the server section.
void parse_tool_search(const object_view& server_section, server& out);
// Refuses it for passthrough, and where a namespace would spell gate's own tools' names.
void check_tool_search(const document& doc, sink& errors);
// After the upstreams: a maximum name length must leave each namespace room.
void parse_routing(const object_view& root, const std::vector<upstream>& upstreams, routing& out);
void parse_discovery(const object_view& root, std::optional<discovery>& out);
void parse_tenants(const object_view& root, const facts& f, std::vector<tenant>& out);
void parse_tracing(const object_view& root, std::optional<tracing>& out);
// The definitions section, and the lock file it names (read here, its problems reported at
// /definitions/lockFile with the line).
void parse_definitions(const object_view& root, definitions& out, const std::string& base_dir);

// Shared shapes.
std::optional<budget> parse_budget(const object_view& parent, std::string_view key);
std::optional<rate_limit> parse_rate_limit(const object_view& parent, std::string_view key);
// An upstream's `toolLimits` (config/parse_tool_limits.cpp); empty when absent or wrong.
std::vector<tool_limit> parse_tool_limits(const object_view& upstream);
// `selector_required`: tenants refuse a missing or empty selector (it would capture every
// caller); policy rules refuse only an empty one, and only they select by `scopes`.
std::optional<subjects> parse_subjects(const object_view& parent, std::string_view key,
                                       bool selector_required, bool scopes_allowed = false);
// `subjects.scopes`: OAuth scope tokens (RFC 6749 3.3), which gate names in a step-up
// challenge's header, so nothing else is accepted.
std::vector<std::string> parse_scopes(const object_view& subjects);
// A JSON scalar as a claim value (numbers as doubles); nullopt for anything else.
std::optional<claim_value> scalar_of(const json::value& v);
// A policy entry's `arguments` and `annotations` (config/parse_conditions.cpp).
std::vector<argument_condition> parse_argument_conditions(const object_view& entry);
std::map<std::string, bool> parse_annotation_conditions(const object_view& entry);

// Reads an http(s) URL member; `secure` demands https except on loopback hosts.
std::optional<std::string> read_http_url(const object_view& o, std::string_view key, bool secure);
// Reads an environment variable name member (secretRef and friends).
std::optional<std::string> read_env_name(const object_view& o, std::string_view key);
// Reads `clientAuth`: {type: client_secret_post | client_secret_basic, secretRef}.
std::optional<client_auth> parse_client_auth(const object_view& parent);
// Why a separator is unusable, or "" when it is fine.
std::string separator_problem(std::string_view separator);
// Reports `key` when it names no configured upstream (unknown ids may still be discovered
// when discovery is configured, so they pass then).
void check_upstream_ref(const facts& f, sink& errors, const std::string& pointer,
                        const std::string& id);

} // namespace gate::config::detail
