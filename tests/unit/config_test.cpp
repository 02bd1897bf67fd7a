// Configuration module: defaults, enums, structure errors, loading, examples and schema.
// Cross-field rules live in config_rules_test.cpp.
#include "config/load.hpp"

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <unistd.h>

namespace gate::config {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

const fs::path source_dir{GATE_SOURCE_DIR};

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string dump(const std::vector<error>& errors) {
    std::string out;
    for (const auto& e : errors) {
        out += "  " + e.pointer + ": " + e.reason + "\n";
    }
    return out;
}

std::shared_ptr<const document> must_parse(std::string_view text) {
    auto r = parse(text, acceptance::specification);
    EXPECT_TRUE(r.errors.empty()) << dump(r.errors);
    EXPECT_NE(r.doc, nullptr);
    return r.doc;
}

// The one error expected at `pointer`, with `needle` in its reason.
void expect_error(std::string_view text, const std::string& pointer, std::string_view needle) {
    auto r = parse(text, acceptance::specification);
    EXPECT_EQ(r.doc, nullptr);
    bool found = false;
    for (const auto& e : r.errors) {
        found = found || (e.pointer == pointer && e.reason.find(needle) != std::string::npos);
    }
    EXPECT_TRUE(found) << "wanted " << pointer << ": ..." << needle << "...\ngot:\n"
                       << dump(r.errors);
}

constexpr std::string_view passthrough_doc =
    R"({"upstreams":[{"id":"solo","url":"http://127.0.0.1:3001/mcp"}]})";

std::string upstream_with(std::string_view fields) {
    return R"({"upstreams":[{"id":"solo","url":"http://127.0.0.1:3001/mcp",)" +
           std::string(fields) + "}]}";
}

TEST(ConfigDefaults, MinimalDocumentGetsEveryDefault) {
    auto doc = must_parse(passthrough_doc);
    ASSERT_NE(doc, nullptr);
    ASSERT_EQ(doc->upstreams.size(), 1u);
    const auto& u = doc->upstreams[0];
    EXPECT_EQ(u.id, "solo");
    EXPECT_EQ(u.urls, std::vector<std::string>{"http://127.0.0.1:3001/mcp"});
    EXPECT_TRUE(u.single_url);
    EXPECT_FALSE(u.namespace_);
    EXPECT_EQ(u.protocol, protocol_mode::session);
    EXPECT_FALSE(u.owner);
    EXPECT_TRUE(u.labels.empty());
    EXPECT_EQ(u.auth.strategy, "none");
    EXPECT_EQ(u.auth.header, "Authorization");
    EXPECT_FALSE(u.auth.scheme);
    EXPECT_EQ(u.timeouts.connect_ms, 5000);
    EXPECT_EQ(u.timeouts.request_ms, 60000);
    EXPECT_EQ(u.circuit_breaker.failure_threshold, 5);
    EXPECT_EQ(u.circuit_breaker.half_open_after_ms, 30000);
    EXPECT_FALSE(u.rate_limit);
    EXPECT_FALSE(u.budget);
    EXPECT_FALSE(u.health_check_interval_ms);
    EXPECT_EQ(u.cache_ttl_ms, 30000);
    EXPECT_TRUE(doc->passthrough());

    EXPECT_FALSE(doc->auth.required);
    EXPECT_FALSE(doc->auth.resource);
    EXPECT_TRUE(doc->auth.issuers.empty());
    EXPECT_FALSE(doc->auth.ema);
    EXPECT_FALSE(doc->policy);
    EXPECT_FALSE(doc->audit);
    EXPECT_EQ(doc->server.mcp_path, "/mcp");
    EXPECT_EQ(doc->server.allowed_hosts,
              (std::vector<std::string>{"localhost", "127.0.0.1", "::1"}));
    EXPECT_FALSE(doc->server.allowed_hosts_any);
    EXPECT_FALSE(doc->server.rate_limit);
    EXPECT_FALSE(doc->server.budget);
    EXPECT_EQ(doc->server.max_body_bytes, 1048576);
    EXPECT_FALSE(doc->server.redis_url);
    EXPECT_FALSE(doc->server.introspection_enabled);
    EXPECT_FALSE(doc->server.console_enabled);
    EXPECT_EQ(doc->routing.namespace_separator, "__");
    EXPECT_EQ(doc->routing.page_size, 200);
    EXPECT_FALSE(doc->discovery);
    EXPECT_TRUE(doc->tenants.empty());
    EXPECT_FALSE(doc->tracing);
}

TEST(ConfigDefaults, SectionDefaultsApplyInsidePresentSections) {
    auto doc = must_parse(R"({
      "upstreams":[{"id":"solo","url":"http://127.0.0.1:3001/mcp","namespace":"solo",
                    "auth":{"strategy":"static","secretRef":"KEY"},
                    "timeouts":{}, "circuitBreaker":{}, "budget":{"upstreamCalls":10}}],
      "auth":{"mode":"required","resource":"http://127.0.0.1:8000/mcp",
              "issuers":[{"issuer":"https://idp.example.com/"}],
              "ema":{"idpIssuer":"https://idp.example.com","signingKeyRef":"EMA_KEY"}},
      "policy":{},
      "discovery":{"url":"http://127.0.0.1:8500/d.json"},
      "tracing":{"otlpEndpoint":"http://127.0.0.1:4318"},
      "server":{"introspection":{},"console":{}}
    })");
    ASSERT_NE(doc, nullptr);
    const auto& u = doc->upstreams[0];
    EXPECT_EQ(u.auth.header, "Authorization");
    EXPECT_FALSE(u.auth.scheme);
    EXPECT_EQ(u.timeouts.connect_ms, 5000);
    EXPECT_EQ(u.circuit_breaker.failure_threshold, 5);
    ASSERT_TRUE(u.budget);
    EXPECT_EQ(u.budget->period, "month");
    EXPECT_EQ(doc->auth.issuers[0].jwks_uri, "https://idp.example.com/.well-known/jwks.json");
    EXPECT_FALSE(doc->auth.issuers[0].exchange_only);
    EXPECT_FALSE(doc->auth.issuers[0].groups_claim);
    ASSERT_TRUE(doc->auth.ema);
    EXPECT_EQ(doc->auth.ema->idp_jwks_uri, "https://idp.example.com/.well-known/jwks.json");
    EXPECT_EQ(doc->auth.ema->token_ttl_sec, 600);
    EXPECT_EQ(doc->auth.ema->token_rate_limit_per_minute, 600);
    ASSERT_TRUE(doc->policy);
    EXPECT_EQ(doc->policy->default_decision, "deny");
    EXPECT_TRUE(doc->policy->rules.empty());
    ASSERT_TRUE(doc->discovery);
    EXPECT_EQ(doc->discovery->interval_ms, 30000);
    EXPECT_FALSE(doc->discovery->bearer_secret_ref);
    EXPECT_TRUE(doc->discovery->allowed_secret_refs.empty());
    EXPECT_TRUE(doc->discovery->allowed_strategies.empty());
    EXPECT_TRUE(doc->discovery->allowed_credential_hosts.empty());
    ASSERT_TRUE(doc->tracing);
    EXPECT_EQ(doc->tracing->service_name, "gate");
    EXPECT_DOUBLE_EQ(doc->tracing->sample_ratio, 1.0);
    EXPECT_FALSE(doc->server.introspection_enabled);
}

TEST(ConfigDefaults, FullExampleReadsEveryField) {
    auto result =
        load((source_dir / "config/examples/full.json").string(), acceptance::specification);
    ASSERT_TRUE(result.errors.empty()) << dump(result.errors);
    const auto& doc = *result.doc;
    ASSERT_EQ(doc.upstreams.size(), 6u);
    const auto& gh = doc.upstreams[0];
    EXPECT_EQ(gh.namespace_, "gh");
    ASSERT_TRUE(gh.owner);
    EXPECT_EQ(gh.owner->org, "acme");
    EXPECT_EQ(gh.owner->team, "platform");
    EXPECT_EQ(gh.owner->contact, "platform-oncall");
    EXPECT_EQ(gh.labels.at("tier"), "gold");
    EXPECT_EQ(gh.auth.secret_ref, "GITHUB_TOKEN");
    EXPECT_EQ(gh.auth.scheme, "Bearer");
    EXPECT_EQ(gh.rate_limit->requests_per_minute, 600);
    EXPECT_EQ(gh.budget->upstream_calls, 100000);
    EXPECT_EQ(gh.health_check_interval_ms, 10000);
    const auto& search = doc.upstreams[1];
    EXPECT_FALSE(search.single_url);
    EXPECT_EQ(search.urls.size(), 2u);
    EXPECT_EQ(search.protocol, protocol_mode::auto_);
    EXPECT_EQ(search.auth.strategy, "client-credentials");
    ASSERT_TRUE(search.auth.client_auth_);
    EXPECT_EQ(search.auth.client_auth_->type, "client_secret_post");
    EXPECT_EQ(search.auth.client_auth_->secret_ref, "SEARCH_CLIENT_SECRET");
    EXPECT_EQ(search.auth.scopes, std::vector<std::string>{"search.read"});
    EXPECT_EQ(search.auth.resource, "http://127.0.0.1:3002/mcp");
    EXPECT_EQ(search.cache_ttl_ms, -1);
    EXPECT_EQ(doc.upstreams[2].protocol, protocol_mode::v2026_07_28);
    EXPECT_EQ(doc.upstreams[2].auth.audience, "crm-api");
    EXPECT_TRUE(doc.auth.required);
    EXPECT_TRUE(doc.auth.issuers[1].exchange_only);
    EXPECT_EQ(doc.auth.issuers[1].jwks_uri, "http://localhost:8081/.well-known/jwks.json");
    const auto& rule = doc.policy->rules[0];
    ASSERT_TRUE(rule.subjects);
    EXPECT_EQ(std::get<std::string>(rule.subjects->claims.at("dept")), "eng");
    EXPECT_DOUBLE_EQ(std::get<double>(rule.subjects->claims.at("level")), 3.0);
    EXPECT_TRUE(std::get<bool>(rule.subjects->claims.at("mfa")));
    EXPECT_EQ(rule.allow[0].names, (std::vector<std::string>{"get_*", "create_pr"}));
    EXPECT_FALSE(doc.policy->rules[1].subjects);
    EXPECT_EQ(doc.audit->sinks[1].headers.at("X-Source"), "gate");
    EXPECT_EQ(doc.server.rate_limit->per_principal_per_minute, 600);
    EXPECT_EQ(doc.server.budget->period, "week");
    EXPECT_EQ(doc.server.redis_url, "redis://127.0.0.1:6379/0");
    EXPECT_TRUE(doc.server.console_enabled);
    EXPECT_EQ(doc.server.public_url, "http://127.0.0.1:8000");
    const auto& tracker = doc.upstreams[4];
    EXPECT_EQ(tracker.auth.strategy, "user-account");
    EXPECT_EQ(tracker.auth.authorization_server, "http://127.0.0.1:9000");
    EXPECT_EQ(tracker.auth.client_auth_->type, "client_secret_basic");
    EXPECT_EQ(tracker.auth.resource, "http://127.0.0.1:3006/mcp");
    EXPECT_EQ(doc.discovery->bearer_secret_ref, "REGISTRY_TOKEN");
    EXPECT_EQ(doc.tenants[0].upstreams->size(), 3u);
    EXPECT_FALSE(doc.tenants[1].upstreams);
    EXPECT_EQ(doc.tracing->otlp_endpoint, "http://127.0.0.1:4318/v1/traces");
    EXPECT_DOUBLE_EQ(doc.tracing->sample_ratio, 0.25);
}

TEST(ConfigEnums, ProtocolValues) {
    EXPECT_EQ(must_parse(upstream_with(R"("protocol":"session")"))->upstreams[0].protocol,
              protocol_mode::session);
    EXPECT_EQ(must_parse(upstream_with(R"("protocol":"auto")"))->upstreams[0].protocol,
              protocol_mode::auto_);
    EXPECT_EQ(must_parse(upstream_with(R"("protocol":"2026-07-28")"))->upstreams[0].protocol,
              protocol_mode::v2026_07_28);
    expect_error(upstream_with(R"("protocol":"2025-06-18")"), "/upstreams/0/protocol",
                 R"("2025-06-18" is not allowed; use one of "session", "auto", "2026-07-28")");
}

TEST(ConfigEnums, BudgetPeriods) {
    for (std::string period : {"hour", "day", "week", "month"}) {
        auto doc = must_parse(
            upstream_with(R"("budget":{"period":")" + period + R"(","upstreamCalls":5})"));
        ASSERT_NE(doc, nullptr);
        EXPECT_EQ(doc->upstreams[0].budget->period, period);
    }
    expect_error(upstream_with(R"("budget":{"period":"year","upstreamCalls":5})"),
                 "/upstreams/0/budget/period", R"("hour", "day", "week", "month")");
}

TEST(ConfigEnums, AuthModeDecisionAndSinkTypes) {
    EXPECT_FALSE(must_parse(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
                              "auth":{"mode":"disabled"}})")
                     ->auth.required);
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
                    "auth":{"mode":"optional"}})",
                 "/auth/mode", R"("disabled", "required")");
    for (std::string decision : {"allow", "deny"}) {
        auto doc = must_parse(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
                                "policy":{"defaultDecision":")" +
                              decision + R"("}})");
        EXPECT_EQ(doc->policy->default_decision, decision);
    }
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
                    "policy":{"defaultDecision":"maybe"}})",
                 "/policy/defaultDecision", R"("allow", "deny")");
    auto doc = must_parse(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
        "audit":{"sinks":[{"type":"stdout"},{"type":"webhook","url":"https://siem.example"}]}})");
    EXPECT_EQ(doc->audit->sinks[0].type, "stdout");
    EXPECT_EQ(doc->audit->sinks[1].type, "webhook");
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
                    "audit":{"sinks":[{"type":"file"}]}})",
                 "/audit/sinks/0/type", R"("stdout", "webhook")");
}

TEST(ConfigEnums, StrategiesAndClientAuthTypes) {
    for (std::string type : {"client_secret_post", "client_secret_basic"}) {
        auto doc = must_parse(upstream_with(
            R"("auth":{"strategy":"client-credentials","tokenEndpoint":"https://idp.example/t",
               "clientId":"c","clientAuth":{"type":")" +
            type + R"(","secretRef":"S"}})"));
        EXPECT_EQ(doc->upstreams[0].auth.client_auth_->type, type);
    }
    expect_error(upstream_with(R"("auth":{"strategy":"client-credentials",
                     "tokenEndpoint":"https://idp.example/t","clientId":"c",
                     "clientAuth":{"type":"private_key_jwt","secretRef":"S"}})"),
                 "/upstreams/0/auth/clientAuth/type", "client_secret_basic");
    expect_error(upstream_with(R"("auth":{"strategy":"oauth"})"), "/upstreams/0/auth/strategy",
                 R"("none", "static", "passthrough", "client-credentials", "token-exchange")");
    EXPECT_EQ(
        must_parse(upstream_with(R"("auth":{"strategy":"none"})"))->upstreams[0].auth.strategy,
        "none");
}

TEST(ConfigEnums, IssuerModes) {
    auto doc = must_parse(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
        "auth":{"mode":"required","resource":"https://gw.example/mcp",
                "issuers":[{"issuer":"https://a.example","mode":"direct"},
                           {"issuer":"https://b.example","mode":"exchange"}],
                "ema":{"idpIssuer":"https://b.example","signingKeyRef":"K"}}})");
    EXPECT_FALSE(doc->auth.issuers[0].exchange_only);
    EXPECT_TRUE(doc->auth.issuers[1].exchange_only);
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
        "auth":{"issuers":[{"issuer":"https://a.example","mode":"both"}]}})",
                 "/auth/issuers/0/mode", R"("direct", "exchange")");
}

TEST(ConfigStructure, WrongTypesNameWhatWasExpected) {
    expect_error(R"({"upstreams":{}})", "/upstreams", "expected an array, got an object");
    expect_error(upstream_with(R"("cacheTtlMs":"30s")"), "/upstreams/0/cacheTtlMs",
                 "expected an integer, got a string");
    expect_error(upstream_with(R"("labels":{"tier":1})"), "/upstreams/0/labels/tier",
                 "expected a string, got a number");
    expect_error(upstream_with(R"("namespace":null)"), "/upstreams/0/namespace",
                 "expected a string, got null");
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
                    "server":{"console":{"enabled":"yes"}}})",
                 "/server/console/enabled", "expected true or false, got a string");
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
                    "tracing":{"otlpEndpoint":"http://127.0.0.1:4318","sampleRatio":"all"}})",
                 "/tracing/sampleRatio", "expected a number, got a string");
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
                    "policy":{"rules":[{"id":"r","allow":[{"server":"a","names":"x"}]}]}})",
                 "/policy/rules/0/allow/0/names", "expected an array, got a string");
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
                    "policy":{"rules":[{"id":"r","allow":[{"server":"a","methods":[1]}]}]}})",
                 "/policy/rules/0/allow/0/methods/0", "expected a string, got a number");
    expect_error(R"([1, 2])", "", "expected an object, got an array");
}

TEST(ConfigStructure, IntegersRejectFractionsButAcceptWholeNumbers) {
    expect_error(upstream_with(R"("timeouts":{"connectMs":1.5})"),
                 "/upstreams/0/timeouts/connectMs", "whole number");
    expect_error(upstream_with(R"("cacheTtlMs":18446744073709551615)"), "/upstreams/0/cacheTtlMs",
                 "too large");
    auto doc = must_parse(upstream_with(R"("timeouts":{"connectMs":2.0,"requestMs":1e3})"));
    EXPECT_EQ(doc->upstreams[0].timeouts.connect_ms, 2);
    EXPECT_EQ(doc->upstreams[0].timeouts.request_ms, 1000);
}

TEST(ConfigStructure, UnknownKeysAreErrorsAtEveryDepth) {
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],"hook":{}})", "/hook",
                 R"(unknown field "hook")");
    expect_error(upstream_with(R"("stdio":"npx server")"), "/upstreams/0/stdio",
                 R"(allowed fields here are "id", "url")");
    expect_error(upstream_with(R"("timeouts":{"streamIdleMs":5})"),
                 "/upstreams/0/timeouts/streamIdleMs", R"("connectMs", "requestMs")");
    expect_error(upstream_with(R"("auth":{"strategy":"client-credentials",
                     "tokenEndpoint":"https://idp.example/t","clientId":"c",
                     "clientAuth":{"type":"client_secret_post","secretRef":"S","extra":1}})"),
                 "/upstreams/0/auth/clientAuth/extra", "unknown field");
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
        "policy":{"rules":[{"id":"r","allow":[{"server":"a","args":{}}]}]}})",
                 "/policy/rules/0/allow/0/args", "unknown field");
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
        "tenants":[{"id":"t","subjects":{"groups":["g"],"scopes":["s"]}}]})",
                 "/tenants/0/subjects/scopes", "unknown field");
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
        "server":{"console":{"enabled":false,"oauth":{}}}})",
                 "/server/console/oauth", "unknown field");
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
        "auth":{"ema":{"idpIssuer":"https://i.example","signingKeyRef":"K","x":1}}})",
                 "/auth/ema/x", "unknown field");
}

TEST(ConfigStructure, EveryIndependentErrorIsReportedInDocumentOrder) {
    auto r = parse(R"({
      "upstreams": [
        {"id": "a", "url": "http://127.0.0.1:1/mcp", "namespace": "a", "cacheTtlMs": "x"},
        {"id": "b", "url": "http://127.0.0.1:2/mcp"}
      ],
      "routing": {"pageSize": 0}
    })",
                   acceptance::specification);
    EXPECT_EQ(r.doc, nullptr);
    ASSERT_EQ(r.errors.size(), 3u) << dump(r.errors);
    EXPECT_EQ(r.errors[0].pointer, "/upstreams/0/cacheTtlMs");
    EXPECT_EQ(r.errors[1].pointer, "/upstreams/1/namespace");
    EXPECT_EQ(r.errors[1].reason.find("required when more than one upstream is configured"), 0u);
    EXPECT_EQ(r.errors[2].pointer, "/routing/pageSize");
}

TEST(ConfigStructure, ErrorsFollowDocumentOrderNotSectionOrder) {
    auto r = parse(R"({
      "tracing": {"otlpEndpoint": "ftp://x"},
      "server": {"mcpPath": "/metrics"},
      "upstreams": [{"id": "A", "url": "http://127.0.0.1:1/mcp"}]
    })",
                   acceptance::specification);
    ASSERT_EQ(r.errors.size(), 3u) << dump(r.errors);
    EXPECT_EQ(r.errors[0].pointer, "/tracing/otlpEndpoint");
    EXPECT_EQ(r.errors[1].pointer, "/server/mcpPath");
    EXPECT_EQ(r.errors[2].pointer, "/upstreams/0/id");
}

TEST(ConfigStructure, PointersEscapeTildeAndSlash) {
    expect_error(upstream_with(R"("labels":{"team/owner~x":7})"),
                 "/upstreams/0/labels/team~1owner~0x", "expected a string");
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],"a/b":1})", "/a~1b",
                 "unknown field");
    expect_error(R"({"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}],
        "policy":{"rules":[{"id":"r","subjects":{"claims":{"https://x/role":[1]}},
                            "allow":[{"server":"a"}]}]}})",
                 "/policy/rules/0/subjects/claims/https:~1~1x~1role", "JSON scalar");
}

TEST(ConfigStructure, DuplicateKeysAreErrors) {
    expect_error(R"({"upstreams":[{"id":"a","id":"b","url":"http://127.0.0.1:1/mcp"}]})",
                 "/upstreams/0/id", R"(duplicate key "id")");
}

TEST(ConfigStructure, SyntaxErrorsCarryPosition) {
    auto r = parse("{\n  \"upstreams\": [,]\n}");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].pointer, "");
    EXPECT_NE(r.errors[0].reason.find("not valid JSON"), std::string::npos);
    EXPECT_NE(r.errors[0].reason.find("line 2"), std::string::npos) << r.errors[0].reason;
    expect_error("{} trailing", "", "not valid JSON");
    expect_error(R"({"upstreams":[]} // comment)", "", "not valid JSON");
}

class ConfigLoad : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("gate-config-test-" + std::to_string(::getpid()));
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path write(const std::string& name, std::string_view text) {
        auto p = dir_ / name;
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
    fs::path dir_;
};

TEST_F(ConfigLoad, InlineJsonIsRecognisedByItsBrace) {
    auto r = load(std::string("  \n\t") + std::string(passthrough_doc));
    ASSERT_TRUE(r.errors.empty()) << dump(r.errors);
    EXPECT_EQ(r.doc->upstreams[0].id, "solo");
}

TEST_F(ConfigLoad, PathIsReadFromDisk) {
    auto p = write("gate.json", passthrough_doc);
    auto r = load(p.string());
    ASSERT_TRUE(r.errors.empty()) << dump(r.errors);
    EXPECT_EQ(r.doc->upstreams[0].id, "solo");
}

TEST_F(ConfigLoad, FileContentsAreValidatedLikeInlineJson) {
    auto p = write("bad.json", R"({"upstreams":[{"id":"Bad","url":"http://127.0.0.1:1/mcp"}]})");
    auto r = load(p.string());
    EXPECT_EQ(r.doc, nullptr);
    ASSERT_EQ(r.errors.size(), 1u) << dump(r.errors);
    EXPECT_EQ(r.errors[0].pointer, "/upstreams/0/id");
}

TEST_F(ConfigLoad, UnreadableFileIsOneErrorAtTheRoot) {
    for (auto path : {(dir_ / "missing.json").string(), dir_.string(), std::string()}) {
        auto r = load(path);
        EXPECT_EQ(r.doc, nullptr);
        ASSERT_EQ(r.errors.size(), 1u) << path;
        EXPECT_EQ(r.errors[0].pointer, "");
        EXPECT_FALSE(r.errors[0].reason.empty());
    }
    auto missing = load((dir_ / "missing.json").string());
    EXPECT_NE(missing.errors[0].reason.find("missing.json"), std::string::npos);
    EXPECT_NE(missing.errors[0].reason.find("No such file"), std::string::npos);
    auto empty = load(write("empty.json", "").string());
    ASSERT_EQ(empty.errors.size(), 1u);
    EXPECT_NE(empty.errors[0].reason.find("not valid JSON"), std::string::npos);
}

TEST(ConfigExamples, EveryExampleIsValid) {
    std::size_t seen = 0;
    for (const auto& entry : fs::directory_iterator(source_dir / "config/examples")) {
        if (entry.path().extension() != ".json") {
            continue;
        }
        ++seen;
        auto r = load(entry.path().string(), acceptance::specification);
        EXPECT_TRUE(r.errors.empty()) << entry.path() << "\n" << dump(r.errors);
        EXPECT_NE(r.doc, nullptr) << entry.path();
    }
    EXPECT_GE(seen, 3u);
}

TEST(ConfigExamples, NamedExamplesHaveTheirShape) {
    auto federation = load((source_dir / "config/examples/federation.json").string());
    ASSERT_NE(federation.doc, nullptr);
    EXPECT_EQ(federation.doc->upstreams.size(), 2u);
    EXPECT_FALSE(federation.doc->passthrough());
    // The packaged /etc/gate/gate.json: its console is what an operator opens first.
    EXPECT_TRUE(federation.doc->server.console_enabled);
    EXPECT_TRUE(federation.doc->server.introspection_enabled);
    auto passthrough = load((source_dir / "config/examples/passthrough.json").string());
    ASSERT_NE(passthrough.doc, nullptr);
    EXPECT_TRUE(passthrough.doc->passthrough());
}

void collect_property_names(const json::value& v, std::set<std::string>& out) {
    if (const auto* obj = v.if_object()) {
        for (const auto& m : *obj) {
            if (m.key() == "properties" && m.value().is_object()) {
                for (const auto& p : m.value().get_object()) {
                    out.emplace(p.key());
                }
            }
            collect_property_names(m.value(), out);
        }
    } else if (const auto* arr = v.if_array()) {
        for (const auto& item : *arr) {
            collect_property_names(item, out);
        }
    }
}

void collect_keys(const json::value& v, std::set<std::string>& out) {
    if (const auto* obj = v.if_object()) {
        for (const auto& m : *obj) {
            out.emplace(m.key());
            collect_keys(m.value(), out);
        }
    } else if (const auto* arr = v.if_array()) {
        for (const auto& item : *arr) {
            collect_keys(item, out);
        }
    }
}

TEST(ConfigSchema, EmbeddedTextIsTheFileOnDisk) {
    auto on_disk = read_file(source_dir / "config/gate.config.schema.json");
    ASSERT_FALSE(on_disk.empty());
    EXPECT_EQ(schema_text(), on_disk);
    EXPECT_EQ(on_disk.find('@'), std::string::npos);
}

TEST(ConfigSchema, IsDraft202012JsonClosedEverywhere) {
    json::error_code ec;
    auto schema = json::parse(schema_text(), ec);
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_EQ(schema.at("$schema"), "https://json-schema.org/draft/2020-12/schema");
    // Every object schema that declares properties also refuses unknown ones.
    std::vector<const json::object*> stack{&schema.as_object()};
    std::size_t objects = 0;
    while (!stack.empty()) {
        const auto* o = stack.back();
        stack.pop_back();
        if (o->contains("properties") && o->contains("type")) {
            ++objects;
            EXPECT_EQ(o->at("additionalProperties"), false) << json::serialize(*o).substr(0, 120);
        }
        for (const auto& m : *o) {
            if (m.value().is_object()) {
                stack.push_back(&m.value().get_object());
            } else if (m.value().is_array()) {
                for (const auto& item : m.value().get_array()) {
                    if (item.is_object()) {
                        stack.push_back(&item.get_object());
                    }
                }
            }
        }
    }
    EXPECT_GT(objects, 20u);
}

TEST(ConfigSchema, FullExampleUsesEveryPropertyTheSchemaNames) {
    std::set<std::string> properties, used;
    collect_property_names(json::parse(schema_text()), properties);
    collect_keys(json::parse(read_file(source_dir / "config/examples/full.json")), used);
    ASSERT_GT(properties.size(), 50u);
    for (const auto& name : properties) {
        EXPECT_TRUE(used.count(name)) << "full.json never uses " << name;
    }
}

TEST(ConfigSchema, DefaultsAgreeWithTheModel) {
    auto schema = json::parse(schema_text());
    const auto& defs = schema.at("$defs");
    auto dflt = [&](std::string_view def, std::string_view prop) {
        return defs.at(def).at("properties").at(prop).at("default");
    };
    document doc;
    upstream u;
    EXPECT_EQ(dflt("server", "mcpPath"), doc.server.mcp_path.c_str());
    EXPECT_EQ(dflt("server", "maxBodyBytes"), doc.server.max_body_bytes);
    const auto& sessions = defs.at("server").at("properties").at("sessions").at("properties");
    EXPECT_EQ(sessions.at("max").at("default"), doc.server.sessions.max);
    EXPECT_EQ(sessions.at("perPrincipal").at("default"), doc.server.sessions.per_principal);
    json::array hosts;
    for (const auto& h : doc.server.allowed_hosts) {
        hosts.emplace_back(h);
    }
    EXPECT_EQ(dflt("server", "allowedHosts"), hosts);
    EXPECT_EQ(dflt("routing", "namespaceSeparator"), doc.routing.namespace_separator.c_str());
    EXPECT_EQ(dflt("routing", "pageSize"), doc.routing.page_size);
    EXPECT_EQ(dflt("upstream", "cacheTtlMs"), u.cache_ttl_ms);
    EXPECT_EQ(dflt("upstream", "protocol"), "session");
    EXPECT_EQ(dflt("upstreamAuth", "strategy"), u.auth.strategy.c_str());
    EXPECT_EQ(dflt("upstreamAuth", "header"), u.auth.header.c_str());
    EXPECT_EQ(dflt("budget", "period"), "month");
    EXPECT_EQ(dflt("discovery", "intervalMs"), discovery{}.interval_ms);
    EXPECT_EQ(dflt("tracing", "serviceName"), tracing{}.service_name.c_str());
    EXPECT_EQ(dflt("tracing", "sampleRatio"), tracing{}.sample_ratio);
    const auto& timeouts = defs.at("upstream").at("properties").at("timeouts").at("properties");
    EXPECT_EQ(timeouts.at("connectMs").at("default"), u.timeouts.connect_ms);
    EXPECT_EQ(timeouts.at("requestMs").at("default"), u.timeouts.request_ms);
    const auto& ema_props = defs.at("auth").at("properties").at("ema").at("properties");
    EXPECT_EQ(ema_props.at("tokenTtlSec").at("default"), ema{}.token_ttl_sec);
    EXPECT_EQ(ema_props.at("tokenRateLimitPerMinute").at("default"),
              ema{}.token_rate_limit_per_minute);
}

} // namespace
} // namespace gate::config
