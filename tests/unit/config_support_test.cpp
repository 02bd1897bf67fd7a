// Nothing gate accepts is ignored: every field of the schema is either enforced (and a named
// test proves it) or refused by gate's own loading with "not supported yet" at its pointer.
#include "config/load.hpp"
#include "config/unsupported.hpp"

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>

namespace gate::config {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

const fs::path source_dir{GATE_SOURCE_DIR};

// Every field the schema defines, as a pointer pattern (`*`: any array index or map key).
void walk(const json::object& defs, const json::value& node, const std::string& path,
          std::set<std::string>& out) {
    const auto* o = node.if_object();
    if (!o)
        return;
    if (const auto* ref = o->if_contains("$ref")) {
        std::string_view name = ref->as_string();
        walk(defs, defs.at(name.substr(name.rfind('/') + 1)), path, out);
        return;
    }
    for (auto key : {"oneOf", "anyOf", "allOf"})
        if (const auto* alts = o->if_contains(key))
            for (const auto& alt : alts->as_array())
                walk(defs, alt, path, out);
    for (auto key : {"if", "then", "else"})
        if (const auto* branch = o->if_contains(key))
            walk(defs, *branch, path, out);
    if (const auto* items = o->if_contains("items"))
        walk(defs, *items, path + "/*", out);
    if (const auto* extra = o->if_contains("additionalProperties"); extra && extra->is_object()) {
        out.insert(path + "/*");
        walk(defs, *extra, path + "/*", out);
    }
    if (const auto* props = o->if_contains("properties"))
        for (const auto& p : props->as_object()) {
            out.insert(path + "/" + std::string(p.key()));
            walk(defs, p.value(), path + "/" + std::string(p.key()), out);
        }
}

std::set<std::string> schema_fields() {
    auto schema = json::parse(schema_text());
    std::set<std::string> out;
    walk(schema.at("$defs").as_object(), schema, "", out);
    return out;
}

// Fields gate enforces, each with the test (a GoogleTest name or a tests/js title) that
// fails if the field's effect disappears. A field that is enforced for some values and
// refused for others (auth.mode) appears here and in the refusals.
const std::map<std::string, std::string> enforced = {
    {"/upstreams", "lists merge both upstreams, every name namespaced exactly once"},
    {"/upstreams/*/id", "one JSON line per response, with the documented fields"},
    {"/upstreams/*/url",
     "tools/call routes by namespace and returns the upstream result unchanged"},
    {"/upstreams/*/urls", "replicas: new sessions alternate between the urls"},
    {"/upstreams/*/namespace", "lists merge both upstreams, every name namespaced exactly once"},
    {"/upstreams/*/protocol",
     "a v2 client in auto mode negotiates 2026-07-28 and lists and calls statelessly"},
    {"/upstreams/*/owner", "owner and labels appear in /health"},
    {"/upstreams/*/owner/org", "owner and labels appear in /health"},
    {"/upstreams/*/owner/team", "owner and labels appear in /health"},
    {"/upstreams/*/owner/contact", "owner and labels appear in /health"},
    {"/upstreams/*/labels", "owner and labels appear in /health"},
    {"/upstreams/*/labels/*", "owner and labels appear in /health"},
    {"/upstreams/*/auth", "an upstream auth of strategy none sends no credential"},
    {"/upstreams/*/auth/strategy", "an upstream auth of strategy none sends no credential"},
    {"/upstreams/*/auth/secretRef", "static: the secret goes in the configured header"},
    {"/upstreams/*/auth/header", "static: the secret goes in the configured header"},
    {"/upstreams/*/auth/scheme", "static: the secret goes in the configured header"},
    {"/upstreams/*/auth/tokenEndpoint", "client-credentials: one token, cached, on every request"},
    {"/upstreams/*/auth/clientId", "client-credentials: one token, cached, on every request"},
    {"/upstreams/*/auth/clientAuth", "client_secret_basic sends the client in the Basic header"},
    {"/upstreams/*/auth/clientAuth/type",
     "client_secret_basic sends the client in the Basic header"},
    {"/upstreams/*/auth/clientAuth/secretRef",
     "client-credentials: one token, cached, on every request"},
    {"/upstreams/*/auth/scopes", "client-credentials: one token, cached, on every request"},
    {"/upstreams/*/auth/resource", "client-credentials: one token, cached, on every request"},
    {"/upstreams/*/auth/audience",
     "token-exchange: RFC 8693 once per principal, cached, with the client's credentials"},
    {"/upstreams/*/timeouts", "timeouts.connectMs bounds a connect that never completes"},
    {"/upstreams/*/timeouts/connectMs", "timeouts.connectMs bounds a connect that never completes"},
    {"/upstreams/*/timeouts/requestMs",
     "a call to the hung upstream fails with -32041 while the live one answers"},
    {"/upstreams/*/circuitBreaker", "an upstream that keeps failing opens its breaker"},
    {"/upstreams/*/circuitBreaker/failureThreshold",
     "an upstream that keeps failing opens its breaker"},
    {"/upstreams/*/circuitBreaker/halfOpenAfterMs",
     "an upstream that keeps failing opens its breaker"},
    {"/upstreams/*/rateLimit", "upstreams[].rateLimit refuses calls over it with -32040"},
    {"/upstreams/*/rateLimit/requestsPerMinute",
     "upstreams[].rateLimit refuses calls over it with -32040"},
    {"/upstreams/*/toolLimits", "ToolWindows.EveryoneSharesOneWindowUntilTheMinutePasses"},
    {"/upstreams/*/toolLimits/*/names", "ToolLimitsMatch.EveryMatchingEntryEveryoneThenPrincipal"},
    {"/upstreams/*/toolLimits/*/requestsPerMinute",
     "ToolWindows.EveryoneSharesOneWindowUntilTheMinutePasses"},
    {"/upstreams/*/toolLimits/*/perPrincipalPerMinute",
     "ToolWindows.EachPrincipalHasItsOwnAllowance"},
    {"/server/publicUrl",
     "a client with URL elicitation is sent to the login on the call, and the call completes"},
    {"/server/vault", "a login through one gate serves the other, refreshed once for both, sealed "
                      "in Redis"},
    {"/server/vault/keyRef", "a login through one gate serves the other, refreshed once for "
                             "both, sealed in Redis"},
    {"/auth/introspection",
     "an opaque token is accepted as the principal its issuer's introspection endpoint names"},
    {"/auth/introspection/url",
     "an opaque token is accepted as the principal its issuer's introspection endpoint names"},
    {"/auth/introspection/clientId",
     "an opaque token is accepted as the principal its issuer's introspection endpoint names"},
    {"/auth/introspection/clientAuth",
     "an opaque token is accepted as the principal its issuer's introspection endpoint names"},
    {"/auth/introspection/clientAuth/type",
     "an opaque token is accepted as the principal its issuer's introspection endpoint names"},
    {"/auth/introspection/clientAuth/secretRef",
     "an opaque token is accepted as the principal its issuer's introspection endpoint names"},
    {"/auth/introspection/issuer",
     "an opaque token is accepted as the principal its issuer's introspection endpoint names"},
    {"/auth/introspection/cacheSeconds",
     "an answer is believed for cacheSeconds; a refused token is asked about once"},
    {"/server/info", "a namespaced federation presents its configured name, icons and "
                     "instructions, and each upstream's under its namespace"},
    {"/server/info/name", "a namespaced federation presents its configured name, icons and "
                          "instructions, and each upstream's under its namespace"},
    {"/server/info/title", "a namespaced federation presents its configured name, icons and "
                           "instructions, and each upstream's under its namespace"},
    {"/server/info/version", "a namespaced federation presents its configured name, icons and "
                             "instructions, and each upstream's under its namespace"},
    {"/server/info/websiteUrl", "a namespaced federation presents its configured name, icons and "
                                "instructions, and each upstream's under its namespace"},
    {"/server/info/icons", "a namespaced federation presents its configured name, icons and "
                           "instructions, and each upstream's under its namespace"},
    {"/server/info/icons/*/src", "a namespaced federation presents its configured name, icons and "
                                 "instructions, and each upstream's under its namespace"},
    {"/server/info/icons/*/mimeType", "a namespaced federation presents its configured name, icons "
                                      "and instructions, and each upstream's under its namespace"},
    {"/server/info/icons/*/sizes", "a namespaced federation presents its configured name, icons "
                                   "and instructions, and each upstream's under its namespace"},
    {"/server/info/icons/*/theme", "a namespaced federation presents its configured name, icons "
                                   "and instructions, and each upstream's under its namespace"},
    {"/server/instructions", "a namespaced federation presents its configured name, icons and "
                             "instructions, and each upstream's under its namespace"},
    {"/server/instructions/text", "a namespaced federation presents its configured name, icons and "
                                  "instructions, and each upstream's under its namespace"},
    {"/server/toolSearch", "tool search finds what the caller may call and a session lists what "
                           "it selects"},
    {"/server/toolSearch/enabled", "tool search finds what the caller may call and a session "
                                   "lists what it selects"},
    {"/server/toolSearch/subjects", "tool search is on only for the subjects it names"},
    {"/server/toolSearch/subjects/subs", "tool search is on only for the subjects it names"},
    {"/server/toolSearch/subjects/groups", "tool search is on only for the subjects it names"},
    {"/server/toolSearch/subjects/issuers", "tool search is on only for the subjects it names"},
    {"/server/toolSearch/subjects/claims", "tool search is on only for the subjects it names"},
    {"/server/toolSearch/subjects/claims/*", "tool search is on only for the subjects it names"},
    {"/server/instructions/fromUpstreams",
     "a namespaced federation presents its configured name, icons and instructions, and each "
     "upstream's under its namespace"},
    {"/server/clientMetadataUrl",
     "gate serves its client metadata document, its client_id where a server takes them"},
    {"/server/vault/operatorScope",
     "an operator revokes a principal's and an upstream's connections in every gate"},
    {"/server/vault/previousKeyRef",
     "a_record_sealed_under_the_previous_key_opens_one_copied_under_another_name_does_not"},
    {"/upstreams/*/auth/authorizationServer",
     "an authorization server that is down is named in the error"},
    {"/server/redisUrl", "fleet: one global limit and one budget across two instances sharing a "
                         "real Redis"},
    {"/server/rateLimit", "server.rateLimit answers 429 with Retry-After and one audit event"},
    {"/server/rateLimit/requestsPerMinute",
     "server.rateLimit answers 429 with Retry-After and one audit event"},
    {"/server/rateLimit/perPrincipalPerMinute",
     "perPrincipalPerMinute: each principal is limited alone"},
    {"/upstreams/*/healthCheck", "an active probe ejects a hung replica before traffic does"},
    {"/upstreams/*/healthCheck/intervalMs",
     "an active probe ejects a hung replica before traffic does"},
    {"/upstreams/*/cacheTtlMs",
     "cacheTtlMs: a list is served from the cache while fresh and fetched again once expired"},
    {"/auth", "auth.mode disabled serves callers anonymously"},
    {"/auth/mode", "auth.mode required answers a request without a token 401 with the challenge"},
    {"/auth/resource", "a token for another audience is refused"},
    {"/auth/issuers", "a token of an untrusted issuer is refused before any key set fetch"},
    {"/auth/issuers/*/issuer",
     "a token of an untrusted issuer is refused before any key set fetch"},
    {"/auth/issuers/*/jwksUri", "a flood of unknown kids costs the identity provider one fetch"},
    {"/auth/issuers/*/groupsClaim", "AcceptsAGoodTokenAndReadsItsGroups"},
    {"/auth/issuers/*/mode", "an exchange-mode issuer's token presented directly is refused"},
    {"/auth/ema", "an ID-JAG is redeemed once for a gateway token that /mcp accepts"},
    {"/auth/ema/idpIssuer", "an ID-JAG is redeemed once for a gateway token that /mcp accepts"},
    {"/auth/ema/idpJwksUri", "an ID-JAG is redeemed once for a gateway token that /mcp accepts"},
    {"/auth/ema/signingKeyRef", "the gateway publishes its minting key"},
    {"/auth/ema/tokenTtlSec", "an ID-JAG is redeemed once for a gateway token that /mcp accepts"},
    {"/auth/ema/tokenRateLimitPerMinute", "the token endpoint is rate limited"},
    {"/audit", "one JSON line per response, with the documented fields"},
    {"/audit/sinks", "one JSON line per response, with the documented fields"},
    {"/audit/sinks/*/type", "one JSON line per response, with the documented fields"},
    {"/server/introspection", "/api/federation reports the federation to an authenticated viewer "
                              "and shares the MCP endpoint's limits"},
    {"/server/introspection/enabled", "/api/federation reports the federation to an authenticated "
                                      "viewer and shares the MCP endpoint's limits"},
    {"/server/introspection/clientId", "/api/auth-hint is public and says how to sign in"},
    {"/server/introspection/scopes", "/api/auth-hint is public and says how to sign in"},
    {"/server/console",
     "the console shows health at a glance in Chromium, under a strict content security policy"},
    {"/server/console/enabled",
     "the console shows health at a glance in Chromium, under a strict content security policy"},
    {"/tracing", "a server span per request and a client span per upstream call, with the "
                 "attributes of the spec"},
    {"/tracing/otlpEndpoint", "a server span per request and a client span per upstream call, with "
                              "the attributes of the spec"},
    {"/tracing/serviceName", "a server span per request and a client span per upstream call, with "
                             "the attributes of the spec"},
    {"/tracing/sampleRatio",
     "parent-based sampling: the caller decides, sampleRatio decides for traces gate roots"},
    {"/discovery", "a source that adds, flaps, serves a bad document and recovers"},
    {"/discovery/url", "a source that adds, flaps, serves a bad document and recovers"},
    {"/discovery/intervalMs", "a source that adds, flaps, serves a bad document and recovers"},
    {"/discovery/bearerSecretRef", "a source that adds, flaps, serves a bad document and recovers"},
    {"/discovery/allowedStrategies", "DiscoveryContainment.EachListOpensOnlyWhatItNames"},
    {"/discovery/allowedSecretRefs", "DiscoveryMerge.ASecretOutsideAllowedSecretRefsIsRejected"},
    {"/discovery/allowedCredentialHosts",
     "DiscoveryMerge.CredentialsGoOnlyToAllowedCredentialHosts"},
    {"/audit/sinks/*/url",
     "batches carry the configured headers, an idempotency key and every event once"},
    {"/audit/sinks/*/headers",
     "batches carry the configured headers, an idempotency key and every event once"},
    {"/audit/sinks/*/headers/*",
     "batches carry the configured headers, an idempotency key and every event once"},
    {"/server", "server.mcpPath moves the MCP endpoint"},
    {"/server/mcpPath", "server.mcpPath moves the MCP endpoint"},
    {"/server/allowedHosts", "server.allowedHosts replaces the localhost set"},
    {"/server/maxBodyBytes", "server.maxBodyBytes sets the body cap"},
    {"/server/sessions",
     "one address opening more than its share ends its own idle sessions; a full table takes "
     "from it first; the others initialize and call"},
    {"/server/sessions/max",
     "one address opening more than its share ends its own idle sessions; a full table takes "
     "from it first; the others initialize and call"},
    {"/server/sessions/perPrincipal",
     "a principal opening more sessions than its share ends its own idle ones; another still "
     "initializes and calls"},
    {"/routing", "paged lists (pageSize 5) hold the same items across all pages"},
    {"/routing/pageSize", "paged lists (pageSize 5) hold the same items across all pages"},
    {"/routing/namespaceSeparator", "routing.namespaceSeparator joins namespace and name"},
    {"/routing/maxNameLength",
     "every listed name fits the maximum; a call by an alias reaches the tool it stands for"},
    {"/tenants", "an empty tenants list is accepted and changes nothing"},
    {"/tenants/*/id", "tenants: each principal's tenant in audit and metrics, denials included"},
    {"/tenants/*/subjects", "TenantResolver.PlacesAPrincipalByItsClaimsAndRefusesOverlap"},
    {"/tenants/*/subjects/subs", "TenantResolver.PlacesAPrincipalByItsClaimsAndRefusesOverlap"},
    {"/tenants/*/subjects/groups", "TenantResolver.PlacesAPrincipalByItsClaimsAndRefusesOverlap"},
    {"/tenants/*/subjects/issuers", "TenantResolver.PlacesAPrincipalByItsClaimsAndRefusesOverlap"},
    {"/tenants/*/subjects/claims", "TenantResolver.PlacesAPrincipalByItsClaimsAndRefusesOverlap"},
    {"/tenants/*/subjects/claims/*", "TenantResolver.PlacesAPrincipalByItsClaimsAndRefusesOverlap"},
    {"/tenants/*/budget",
     "budgets: -32044 naming the reset instant, per upstream, server and tenant"},
    {"/tenants/*/budget/period", "BudgetLedger.PeriodsAreUtcCalendarPeriods"},
    {"/tenants/*/budget/upstreamCalls",
     "budgets: -32044 naming the reset instant, per upstream, server and tenant"},
    {"/server/budget", "budgets: -32044 naming the reset instant, per upstream, server and tenant"},
    {"/server/budget/period", "BudgetLedger.PeriodsAreUtcCalendarPeriods"},
    {"/server/budget/upstreamCalls",
     "budgets: -32044 naming the reset instant, per upstream, server and tenant"},
    {"/upstreams/*/budget",
     "budgets: -32044 naming the reset instant, per upstream, server and tenant"},
    {"/upstreams/*/budget/period", "BudgetLedger.PeriodsAreUtcCalendarPeriods"},
    {"/upstreams/*/budget/upstreamCalls",
     "budgets: -32044 naming the reset instant, per upstream, server and tenant"},
    {"/tenants/*/upstreams",
     "tenants[].upstreams: the others are absent from lists and answer like unknown ones"},
    {"/tenants/*/rateLimit", "tenants[].rateLimit: one bucket shared by the tenant's principals"},
    {"/tenants/*/rateLimit/requestsPerMinute",
     "tenants[].rateLimit: one bucket shared by the tenant's principals"},
    {"/policy", "two principals see different lists and get -32042 on each other's tools"},
    {"/policy/defaultDecision", "defaultDecision allow lets through what no rule grants"},
    {"/policy/rules", "two principals see different lists and get -32042 on each other's tools"},
    {"/policy/rules/*/id", "the granting rule is named in audit as ruleId"},
    {"/policy/rules/*/subjects", "PolicyEngine.SubjectsSelectByEveryKindTheyList"},
    {"/policy/rules/*/subjects/subs", "PolicyEngine.SubjectsSelectByEveryKindTheyList"},
    {"/policy/rules/*/subjects/groups", "PolicyEngine.SubjectsSelectByEveryKindTheyList"},
    {"/policy/rules/*/subjects/issuers", "PolicyEngine.SubjectsSelectByEveryKindTheyList"},
    {"/policy/rules/*/subjects/claims", "PolicyEngine.SubjectsSelectByEveryKindTheyList"},
    {"/policy/rules/*/subjects/claims/*", "PolicyEngine.SubjectsSelectByEveryKindTheyList"},
    {"/policy/rules/*/allow",
     "two principals see different lists and get -32042 on each other's tools"},
    {"/policy/rules/*/allow/*/server", "PolicyEngine.GrantsMatchServerMethodsAndNames"},
    {"/policy/rules/*/allow/*/methods", "PolicyEngine.GrantsMatchServerMethodsAndNames"},
    {"/policy/rules/*/allow/*/names", "PolicyEngine.GrantsMatchServerMethodsAndNames"},
    {"/definitions", "warn: the first definition seen is pinned; a change is served and told once"},
    {"/definitions/pin",
     "warn: the first definition seen is pinned; a change is served and told once"},
    {"/definitions/lockFile",
     "a lock file from gate definitions lock: changes and new tools withheld until locked again "
     "and reloaded"},
    {"/upstreams/*/pinDefinitions",
     "block: a changed tool is withheld from lists and refused on call, naming the change"},
    {"/policy/rules/*/allow/*/arguments",
     "argument conditions allow some calls of a tool and refuse others, before the upstream"},
    {"/policy/rules/*/allow/*/arguments/*/pointer", "PolicyDepth.PointersFollowRfc6901"},
    {"/policy/rules/*/allow/*/arguments/*/equals",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/allow/*/arguments/*/in",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/allow/*/arguments/*/prefix",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/allow/*/arguments/*/pattern",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/allow/*/arguments/*/min",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/allow/*/arguments/*/max",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/allow/*/arguments/*/present", "PolicyDepth.PointersFollowRfc6901"},
    {"/policy/rules/*/allow/*/arguments/*/normalize",
     "the file writers grant a path under /srv/ as the path it names, never one with .."},
    {"/policy/rules/*/allow/*/arguments/*/ignoreCase",
     "the secret- deny holds whatever the case of the repository's name"},
    {"/policy/rules/*/allow/*/annotations",
     "a tool's annotations decide its first call, before any list was asked for"},
    {"/policy/rules/*/allow/*/annotations/readOnlyHint",
     "PolicyDepth.AnnotationConditionsReadTheToolsHintsWithMcpDefaults"},
    {"/policy/rules/*/allow/*/annotations/destructiveHint",
     "PolicyDepth.AnnotationConditionsReadTheToolsHintsWithMcpDefaults"},
    {"/policy/rules/*/allow/*/annotations/idempotentHint",
     "PolicyDepth.AnnotationConditionsReadTheToolsHintsWithMcpDefaults"},
    {"/policy/rules/*/allow/*/annotations/openWorldHint",
     "PolicyDepth.AnnotationConditionsReadTheToolsHintsWithMcpDefaults"},
    {"/policy/rules/*/deny",
     "a deny entry wins over grants: destructive tools, and those that declare nothing"},
    {"/policy/rules/*/deny/*/server", "PolicyDepth.ADenyEntryWinsOverEveryAllowWhateverTheOrder"},
    {"/policy/rules/*/deny/*/methods",
     "PolicyDepth.TasksAndServerRequestsIgnoreConditionalEntries"},
    {"/policy/rules/*/deny/*/names", "PolicyDepth.ADenyEntryWinsOverEveryAllowWhateverTheOrder"},
    {"/policy/rules/*/deny/*/arguments",
     "argument conditions allow some calls of a tool and refuse others, before the upstream"},
    {"/policy/rules/*/deny/*/arguments/*/pointer", "PolicyDepth.PointersFollowRfc6901"},
    {"/policy/rules/*/deny/*/arguments/*/equals",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/deny/*/arguments/*/in",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/deny/*/arguments/*/prefix",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/deny/*/arguments/*/pattern",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/deny/*/arguments/*/min",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/deny/*/arguments/*/max",
     "PolicyDepth.ArgumentConditionsTestTheValueAtTheirPointer"},
    {"/policy/rules/*/deny/*/arguments/*/present", "PolicyDepth.PointersFollowRfc6901"},
    {"/policy/rules/*/deny/*/arguments/*/normalize",
     "the file writers grant a path under /srv/ as the path it names, never one with .."},
    {"/policy/rules/*/deny/*/arguments/*/ignoreCase",
     "the secret- deny holds whatever the case of the repository's name"},
    {"/policy/rules/*/deny/*/annotations",
     "a deny entry wins over grants: destructive tools, and those that declare nothing"},
    {"/policy/rules/*/deny/*/annotations/readOnlyHint",
     "PolicyDepth.AnnotationConditionsReadTheToolsHintsWithMcpDefaults"},
    {"/policy/rules/*/deny/*/annotations/destructiveHint",
     "PolicyDepth.AnnotationConditionsReadTheToolsHintsWithMcpDefaults"},
    {"/policy/rules/*/deny/*/annotations/idempotentHint",
     "PolicyDepth.AnnotationConditionsReadTheToolsHintsWithMcpDefaults"},
    {"/policy/rules/*/deny/*/annotations/openWorldHint",
     "PolicyDepth.AnnotationConditionsReadTheToolsHintsWithMcpDefaults"},
    {"/policy/decisionHook", "what the rules allow is described to the hook and goes on when it "
                             "allows"},
    {"/policy/decisionHook/url",
     "its denial is -32042 with its reason; the policy decision and the "
     "hook verdict are audited"},
    {"/policy/decisionHook/bearerSecretRef",
     "both instances ask the hook for each principal, with its bearer token"},
    {"/policy/decisionHook/timeoutMs", "a hook that does not answer in time denies"},
    {"/policy/decisionHook/maxConcurrent",
     "past maxConcurrent a question waits its turn, and gets it when one is answered"},
    {"/policy/decisionHook/onError", "a hook that is down denies by default, and lets calls "
                                     "through under onError allow"},
    {"/policy/decisionHook/stages",
     "a result the hook denies is withheld after the upstream answered"},
    {"/policy/decisionHook/include",
     "what the rules allow is described to the hook and goes on when it allows"},
    {"/policy/decisionHook/cacheTtlMs",
     "an answer is remembered for the same description, not for other arguments"},
    {"/policy/rules/*/subjects/scopes", "a missing scope is answered 403 insufficient_scope with "
                                        "the scopes, over HTTP and in the error"},
};

// Fields refused only through another field that always comes with them (a member of a
// refused value); none at present.
const std::map<std::string, std::string> refused_through = {};

bool refused_pattern(const std::string& field) {
    for (const auto& f : unsupported_fields())
        if (f.pattern == field)
            return true;
    return false;
}

// A refused field whose every value is refused covers its members too (`/auth/ema/tokenTtlSec`
// under `/auth/ema`).
bool under_wholly_refused(const std::string& field) {
    for (const auto& f : unsupported_fields())
        if (!f.applies && field.starts_with(std::string(f.pattern) + "/"))
            return true;
    return false;
}

std::string all_test_sources() {
    std::string text;
    auto it = fs::recursive_directory_iterator(source_dir / "tests");
    for (auto entry = fs::begin(it); entry != fs::end(it); ++entry) {
        // Not this file (the names are listed here: each would find itself) nor the npm
        // packages the end-to-end tests use.
        if (entry->is_directory() && entry->path().filename() == "node_modules") {
            entry.disable_recursion_pending();
            continue;
        }
        auto ext = entry->path().extension();
        if ((ext != ".cpp" && ext != ".mjs") ||
            entry->path().filename() == "config_support_test.cpp")
            continue;
        std::ifstream in(entry->path());
        std::ostringstream s;
        s << in.rdbuf();
        text += s.str();
    }
    return text;
}

TEST(ConfigSupport, EverySchemaFieldIsEnforcedOrRefused) {
    auto fields = schema_fields();
    ASSERT_GT(fields.size(), 100u);
    for (const auto& field : fields) {
        bool covered = enforced.contains(field) || refused_pattern(field) ||
                       under_wholly_refused(field) || refused_through.contains(field);
        EXPECT_TRUE(covered) << field
                             << " is neither enforced (with a test) nor refused as not supported";
    }
    for (const auto& [field, test] : enforced)
        EXPECT_TRUE(fields.contains(field)) << "stale entry " << field;
    for (const auto& [field, through] : refused_through) {
        EXPECT_TRUE(fields.contains(field)) << "stale entry " << field;
        EXPECT_TRUE(refused_pattern(through)) << field << " is refused through " << through;
    }
    for (const auto& f : unsupported_fields())
        EXPECT_TRUE(fields.contains(std::string(f.pattern)) ||
                    fields.contains(std::string(f.pattern.substr(0, f.pattern.rfind('/')))))
            << "refusal of " << f.pattern << " names no schema field";
}

TEST(ConfigSupport, EveryEnforcedFieldNamesATestThatExists) {
    auto sources = all_test_sources();
    ASSERT_FALSE(sources.empty());
    for (const auto& [field, test] : enforced) {
        // A GoogleTest test is named Suite.Name and defined as TEST(Suite, Name).
        auto dot = test.find('.');
        bool gtest = dot != std::string::npos && test.find(' ') == std::string::npos;
        auto written =
            gtest ? "TEST(" + test.substr(0, dot) + ", " + test.substr(dot + 1) + ")" : test;
        EXPECT_NE(sources.find(written), std::string::npos)
            << field << " names the test \"" << test << "\", which does not exist";
    }
}

TEST(ConfigSupport, ValuesThatMeanNothingChangesAreAccepted) {
    for (
        auto text : {
            R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],"auth":{"mode":"disabled"}})",
            R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp","auth":{"strategy":"none"}}]})",
            R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],"tenants":[]})",
            R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],"server":{"introspection":{"enabled":false},"console":{"enabled":false}}})",
            R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],"audit":{"sinks":[{"type":"stdout"}]}})",
        }) {
        auto r = parse(text);
        EXPECT_TRUE(r.errors.empty()) << text << "\n"
                                      << (r.errors.empty() ? "" : r.errors[0].reason);
    }
}

TEST(ConfigSupport, EveryExampleIsAcceptedAsGateEnforcesIt) {
    int examples = 0;
    for (const auto& entry : fs::directory_iterator(source_dir / "config/examples")) {
        if (entry.path().extension() != ".json")
            continue;
        ++examples;
        auto r = load(entry.path().string());
        for (const auto& e : r.errors)
            ADD_FAILURE() << entry.path() << " " << e.pointer << ": " << e.reason;
    }
    EXPECT_GT(examples, 3);
}

} // namespace
} // namespace gate::config
