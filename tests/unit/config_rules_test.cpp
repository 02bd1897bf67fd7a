// Cross-field and value rules of the configuration document, each shown failing and passing.
#include "config/load.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace gate::config {
namespace {

namespace json = boost::json;

std::string dump(const std::vector<error>& errors) {
    std::string out;
    for (const auto& e : errors) {
        out += "  " + e.pointer + ": " + e.reason + "\n";
    }
    return out;
}

// A valid two-upstream federation that each test edits.
json::value base() {
    return json::parse(R"({
      "upstreams": [
        {"id": "alpha", "url": "http://127.0.0.1:3001/mcp", "namespace": "a"},
        {"id": "beta", "url": "http://127.0.0.1:3002/mcp", "namespace": "b"}
      ]
    })");
}

std::vector<std::string> tokens(std::string_view pointer) {
    std::vector<std::string> out;
    std::size_t pos = 1;
    while (pos <= pointer.size()) {
        auto next = pointer.find('/', pos);
        std::string t(pointer.substr(pos, next == std::string_view::npos ? next : next - pos));
        out.push_back(t);
        if (next == std::string_view::npos) {
            break;
        }
        pos = next + 1;
    }
    return out;
}

// Sets the member at `pointer`, creating objects on the way; an index one past the end of an
// array appends.
json::value with(json::value doc, std::string_view pointer, json::value v) {
    auto path = tokens(pointer);
    json::value* at = &doc;
    for (std::size_t i = 0; i < path.size(); ++i) {
        bool last = i + 1 == path.size();
        if (at->is_array()) {
            auto& arr = at->as_array();
            auto index = std::stoul(path[i]);
            if (index == arr.size()) {
                arr.emplace_back(json::object{});
            }
            at = &arr.at(index);
            if (last) {
                *at = v;
            }
            continue;
        }
        auto& obj = at->as_object();
        if (last) {
            obj[path[i]] = v;
        } else {
            if (!obj.contains(path[i])) {
                obj[path[i]] = json::object{};
            }
            at = &obj[path[i]];
        }
    }
    return doc;
}

json::value without(json::value doc, std::string_view pointer) {
    auto path = tokens(pointer);
    json::value* at = &doc;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        at =
            at->is_array() ? &at->as_array().at(std::stoul(path[i])) : &at->as_object().at(path[i]);
    }
    at->as_object().erase(path.back());
    return doc;
}

json::value j(std::string_view text) {
    return json::parse(text);
}

load_result run(const json::value& doc) {
    return parse(json::serialize(doc), acceptance::specification);
}

void expect_ok(const json::value& doc) {
    auto r = run(doc);
    EXPECT_TRUE(r.errors.empty()) << json::serialize(doc) << "\n" << dump(r.errors);
    EXPECT_NE(r.doc, nullptr);
}

void expect_error(const json::value& doc, const std::string& pointer, std::string_view needle) {
    auto r = run(doc);
    EXPECT_EQ(r.doc, nullptr);
    bool found = false;
    for (const auto& e : r.errors) {
        found = found || (e.pointer == pointer && e.reason.find(needle) != std::string::npos);
    }
    EXPECT_TRUE(found) << json::serialize(doc) << "\nwanted " << pointer << ": ..." << needle
                       << "...\ngot:\n"
                       << dump(r.errors);
}

json::value required_auth(json::value doc) {
    return with(std::move(doc), "/auth",
                j(R"({"mode":"required","resource":"https://gw.example/mcp",
                      "issuers":[{"issuer":"https://idp.example"}]})"));
}

TEST(ConfigRules, BaseDocumentIsValid) {
    expect_ok(base());
}

TEST(ConfigRules, EveryUpstreamNeedsANamespaceWhenThereAreSeveral) {
    expect_error(without(base(), "/upstreams/1/namespace"), "/upstreams/1/namespace",
                 "required when more than one upstream is configured");
    auto r = run(without(without(base(), "/upstreams/0/namespace"), "/upstreams/1/namespace"));
    EXPECT_EQ(r.errors.size(), 2u) << dump(r.errors);
}

TEST(ConfigRules, PassthroughNeedsASingleUpstreamAndNoDiscovery) {
    auto single = j(R"({"upstreams":[{"id":"solo","url":"http://127.0.0.1:1/mcp"}]})");
    expect_ok(single);
    expect_error(with(single, "/discovery", j(R"({"url":"http://127.0.0.1:8500/d"})")),
                 "/upstreams/0/namespace", "required when discovery is configured");
    expect_ok(with(with(single, "/upstreams/0/namespace", "s"), "/discovery",
                   j(R"({"url":"http://127.0.0.1:8500/d"})")));
}

TEST(ConfigRules, UpstreamsMayBeAbsentOrEmptyOnlyWithDiscovery) {
    expect_error(j("{}"), "/upstreams", "required");
    expect_error(j(R"({"upstreams":[]})"), "/upstreams", "at least one upstream");
    auto discovery = j(R"({"url":"http://127.0.0.1:8500/d"})");
    expect_ok(with(j("{}"), "/discovery", discovery));
    expect_ok(with(j(R"({"upstreams":[]})"), "/discovery", discovery));
}

TEST(ConfigRules, ExactlyOneOfUrlAndUrls) {
    expect_error(with(base(), "/upstreams/0/urls", j(R"(["http://127.0.0.1:4/mcp"])")),
                 "/upstreams/0/urls", "exactly one of url");
    expect_error(without(base(), "/upstreams/0/url"), "/upstreams/0/url",
                 "required: set exactly one of url");
    auto replicas = with(without(base(), "/upstreams/0/url"), "/upstreams/0/urls",
                         j(R"(["http://127.0.0.1:4/mcp","https://r2.example/mcp"])"));
    expect_ok(replicas);
    auto doc = run(replicas).doc;
    ASSERT_NE(doc, nullptr);
    EXPECT_FALSE(doc->upstreams[0].single_url);
    EXPECT_EQ(doc->upstreams[0].urls.size(), 2u);
    expect_error(with(replicas, "/upstreams/0/urls", j("[]")), "/upstreams/0/urls",
                 "at least one endpoint");
    expect_error(with(replicas, "/upstreams/0/urls", j(R"(["http://127.0.0.1:4/mcp","ws://x/"])")),
                 "/upstreams/0/urls/1", "http:// or https://");
    expect_error(with(replicas, "/upstreams/0/urls", j(R"(["http://h/mcp","http://h/mcp"])")),
                 "/upstreams/0/urls/1", "distinct");
}

TEST(ConfigRules, UpstreamUrlsMustBeHttpUrls) {
    expect_error(with(base(), "/upstreams/0/url", "stdio:npx server"), "/upstreams/0/url",
                 "http:// or https://");
    expect_error(with(base(), "/upstreams/0/url", "127.0.0.1:3001/mcp"), "/upstreams/0/url",
                 "not a valid URL");
    expect_error(with(base(), "/upstreams/0/url", "ftp://127.0.0.1/mcp"), "/upstreams/0/url",
                 "http:// or https://");
    expect_error(with(base(), "/upstreams/0/url", "http://user:pw@127.0.0.1/mcp"),
                 "/upstreams/0/url", "credentials");
    expect_error(with(base(), "/upstreams/0/url", "http://127.0.0.1:99999/mcp"), "/upstreams/0/url",
                 "port");
    expect_error(with(base(), "/upstreams/0/url", "http:///mcp"), "/upstreams/0/url", "no host");
    // Plain http is fine for upstreams anywhere: the https mandate covers trust anchors only.
    expect_ok(with(base(), "/upstreams/0/url", "http://mcp.internal:8080/mcp"));
    expect_ok(with(base(), "/upstreams/0/url", "https://[2001:db8::1]:8443/mcp"));
}

TEST(ConfigRules, UpstreamIdsAreLowercaseSlugsAndUnique) {
    for (auto bad : {"Alpha", "al_pha", "-alpha", "al pha", ""}) {
        expect_error(with(base(), "/upstreams/0/id", bad), "/upstreams/0/id", "");
    }
    expect_error(with(base(), "/upstreams/0/id", "Alpha"), "/upstreams/0/id",
                 "lowercase letters, digits and hyphens");
    expect_ok(with(base(), "/upstreams/0/id", "alpha-2"));
    expect_ok(with(base(), "/upstreams/0/id", "9lives"));
    expect_error(with(base(), "/upstreams/1/id", "alpha"), "/upstreams/1/id",
                 "duplicate upstream id \"alpha\" (already used by /upstreams/0/id)");
    expect_error(without(base(), "/upstreams/0/id"), "/upstreams/0/id", "required");
}

TEST(ConfigRules, NamespacesAreUniqueAndFreeOfTheSeparator) {
    expect_error(with(base(), "/upstreams/1/namespace", "a"), "/upstreams/1/namespace",
                 "duplicate namespace");
    expect_error(with(base(), "/upstreams/1/namespace", "b__c"), "/upstreams/1/namespace",
                 "must not contain the namespace separator \"__\"");
    // "b_" + "__" + "x" would split as "b" + "___x".
    expect_error(with(base(), "/upstreams/1/namespace", "b_"), "/upstreams/1/namespace",
                 "separator");
    expect_ok(with(base(), "/upstreams/1/namespace", "b_c"));
    auto colons = with(base(), "/routing/namespaceSeparator", "::");
    expect_ok(with(colons, "/upstreams/1/namespace", "b__c"));
    expect_error(with(colons, "/upstreams/1/namespace", "b::c"), "/upstreams/1/namespace",
                 "\"::\"");
    expect_error(with(base(), "/upstreams/1/namespace", ""), "/upstreams/1/namespace", "empty");
}

TEST(ConfigRules, SeparatorAvoidsTheNamespaceAlphabet) {
    for (auto bad : {"x", "_x_", "-", "9", "__a"}) {
        expect_error(with(base(), "/routing/namespaceSeparator", bad),
                     "/routing/namespaceSeparator", "lowercase letters, digits or hyphens");
    }
    expect_error(with(base(), "/routing/namespaceSeparator", ""), "/routing/namespaceSeparator",
                 "must not be empty");
    for (auto good : {"__", ".", "::", "/", "_X_"}) {
        expect_ok(with(base(), "/routing/namespaceSeparator", good));
    }
    // An invalid separator is reported once, not again for every namespace.
    auto r = run(with(base(), "/routing/namespaceSeparator", "a"));
    EXPECT_EQ(r.errors.size(), 1u) << dump(r.errors);
}

TEST(ConfigRules, PageSizeIsAnyIntegerButZero) {
    expect_error(with(base(), "/routing/pageSize", 0), "/routing/pageSize", "must not be 0");
    expect_ok(with(base(), "/routing/pageSize", -1));
    expect_ok(with(base(), "/routing/pageSize", 1));
    expect_error(with(base(), "/routing/pageSize", 2.5), "/routing/pageSize", "whole number");
    EXPECT_EQ(run(with(base(), "/routing/pageSize", -5)).doc->routing.page_size, -5);
}

TEST(ConfigRules, MaxNameLengthIsBoundedAndLeavesEachNamespaceRoom) {
    EXPECT_EQ(run(base()).doc->routing.max_name_length, 0u); // absent: never shortened
    EXPECT_EQ(run(with(base(), "/routing/maxNameLength", 64)).doc->routing.max_name_length, 64u);
    expect_error(with(base(), "/routing/maxNameLength", 15), "/routing/maxNameLength",
                 "between 16 and 128");
    expect_error(with(base(), "/routing/maxNameLength", 129), "/routing/maxNameLength",
                 "between 16 and 128");
    expect_error(with(base(), "/routing/maxNameLength", "64"), "/routing/maxNameLength", "integer");
    // "long-namespace" and "__" take 16 characters: 16 + 9 + 1 is the least that shortens.
    auto crowded = with(base(), "/upstreams/1/namespace", "long-namespace");
    expect_error(with(crowded, "/routing/maxNameLength", 25), "/routing/maxNameLength",
                 "upstreams[1].namespace \"long-namespace\" with the separator \"__\" takes 16 "
                 "characters of every name, leaving no room for a shortened name and its "
                 "9-character suffix: raise it to at least 26");
    expect_ok(with(crowded, "/routing/maxNameLength", 26));
}

TEST(ConfigRules, CacheTtlAcceptsNegativeToDisable) {
    expect_ok(with(base(), "/upstreams/0/cacheTtlMs", -1));
    expect_ok(with(base(), "/upstreams/0/cacheTtlMs", 0));
    expect_error(with(base(), "/upstreams/0/cacheTtlMs", 0.5), "/upstreams/0/cacheTtlMs",
                 "whole number");
}

TEST(ConfigRules, TrustAnchorsUseHttpsExceptOnLoopback) {
    auto issuer = [](std::string_view url) {
        return with(required_auth(base()), "/auth/issuers/0/issuer", json::string(url));
    };
    expect_error(issuer("http://idp.example"), "/auth/issuers/0/issuer", "must use https");
    expect_error(issuer("http://128.0.0.1"), "/auth/issuers/0/issuer", "must use https");
    expect_error(issuer("http://localhost.evil.example"), "/auth/issuers/0/issuer",
                 "must use https");
    for (auto good : {"https://idp.example", "http://localhost:8080", "http://LOCALHOST",
                      "http://127.0.0.1", "http://127.45.6.7:9000/realm", "http://[::1]:8080",
                      "http://[0:0:0:0:0:0:0:1]", "http://[::ffff:127.0.0.1]"}) {
        expect_ok(issuer(good));
    }
    expect_error(with(required_auth(base()), "/auth/issuers/0/jwksUri", "http://keys.example/k"),
                 "/auth/issuers/0/jwksUri", "must use https");
    expect_ok(with(required_auth(base()), "/auth/issuers/0/jwksUri", "https://keys.example/k"));
    auto ema = with(required_auth(base()), "/auth/ema",
                    j(R"({"idpIssuer":"http://idp.example","idpJwksUri":"http://idp.example/k",
                          "signingKeyRef":"K"})"));
    expect_error(ema, "/auth/ema/idpIssuer", "must use https");
    expect_error(ema, "/auth/ema/idpJwksUri", "must use https");
    auto cc = with(base(), "/upstreams/0/auth",
                   j(R"({"strategy":"client-credentials","tokenEndpoint":"http://idp.example/t",
                         "clientId":"c","clientAuth":{"type":"client_secret_post",
                         "secretRef":"S"}})"));
    expect_error(cc, "/upstreams/0/auth/tokenEndpoint", "must use https");
    expect_ok(with(cc, "/upstreams/0/auth/tokenEndpoint", "http://127.0.0.1:8080/t"));
    auto te = with(required_auth(base()), "/upstreams/0/auth",
                   j(R"({"strategy":"token-exchange","tokenEndpoint":"http://idp.example/t",
                         "clientId":"c","audience":"api","clientAuth":{
                         "type":"client_secret_basic","secretRef":"S"}})"));
    expect_error(te, "/upstreams/0/auth/tokenEndpoint", "must use https");
    expect_ok(with(te, "/upstreams/0/auth/tokenEndpoint", "https://idp.example/t"));
}

TEST(ConfigRules, DefaultJwksUriFollowsTheIssuer) {
    auto doc = run(required_auth(base())).doc;
    ASSERT_NE(doc, nullptr);
    EXPECT_EQ(doc->auth.issuers[0].jwks_uri, "https://idp.example/.well-known/jwks.json");
}

TEST(ConfigRules, CallerDerivedStrategiesNeedRequiredAuth) {
    auto passthrough = with(base(), "/upstreams/0/auth", j(R"({"strategy":"passthrough"})"));
    expect_error(passthrough, "/upstreams/0/auth/strategy", "needs auth.mode \"required\"");
    expect_ok(required_auth(passthrough));
    auto te = with(base(), "/upstreams/1/auth",
                   j(R"({"strategy":"token-exchange","tokenEndpoint":"https://idp.example/t",
                         "clientId":"c","audience":"api",
                         "clientAuth":{"type":"client_secret_basic","secretRef":"S"}})"));
    expect_error(te, "/upstreams/1/auth/strategy", "needs auth.mode \"required\"");
    expect_error(with(te, "/auth/mode", "disabled"), "/upstreams/1/auth/strategy", "required");
    expect_ok(required_auth(te));
    // A mistyped mode is reported once, not again for every upstream that depends on it.
    auto r = run(with(passthrough, "/auth/mode", "requierd"));
    ASSERT_EQ(r.errors.size(), 1u) << dump(r.errors);
    EXPECT_EQ(r.errors[0].pointer, "/auth/mode");
}

TEST(ConfigRules, RequiredAuthNeedsResourceAndAnIssuerOrEma) {
    expect_error(with(base(), "/auth/mode", "required"), "/auth/resource",
                 "required when auth.mode is \"required\"");
    expect_error(with(base(), "/auth/mode", "required"), "/auth/issuers",
                 "at least one trusted issuer, or configure auth.ema");
    expect_error(with(required_auth(base()), "/auth/issuers", j("[]")), "/auth/issuers",
                 "at least one trusted issuer");
    auto ema_only = with(without(required_auth(base()), "/auth/issuers"), "/auth/ema",
                         j(R"({"idpIssuer":"https://idp.example","signingKeyRef":"EMA_KEY"})"));
    expect_ok(ema_only);
    expect_error(with(ema_only, "/auth/mode", "disabled"), "/auth/ema",
                 "needs auth.mode \"required\"");
    expect_error(without(ema_only, "/auth/mode"), "/auth/ema", "needs auth.mode");
    expect_error(with(required_auth(base()), "/auth/resource", "gw"), "/auth/resource",
                 "not a valid URL");
    // Issuers listed while auth is disabled are still checked: they are trust anchors.
    expect_error(with(base(), "/auth/issuers", j(R"([{"issuer":"http://idp.example"}])")),
                 "/auth/issuers/0/issuer", "https");
}

TEST(ConfigRules, EmaFieldsAndExchangeIssuers) {
    auto ema = with(required_auth(base()), "/auth/ema", j(R"({})"));
    expect_error(ema, "/auth/ema/idpIssuer", "required");
    expect_error(ema, "/auth/ema/signingKeyRef", "required");
    auto full = with(required_auth(base()), "/auth/ema",
                     j(R"({"idpIssuer":"https://idp.example","signingKeyRef":"EMA_KEY",
                           "tokenTtlSec":60,"tokenRateLimitPerMinute":10})"));
    expect_ok(full);
    expect_error(with(full, "/auth/ema/tokenTtlSec", 0), "/auth/ema/tokenTtlSec", "positive");
    expect_error(with(full, "/auth/ema/tokenRateLimitPerMinute", -1),
                 "/auth/ema/tokenRateLimitPerMinute", "positive");
    expect_error(with(full, "/auth/ema/signingKeyRef", "-----BEGIN PRIVATE KEY-----"),
                 "/auth/ema/signingKeyRef", "environment variable name");
    auto exchange = with(required_auth(base()), "/auth/issuers/0/mode", "exchange");
    expect_error(exchange, "/auth/issuers/0/mode", "needs auth.ema");
    expect_ok(with(exchange, "/auth/ema",
                   j(R"({"idpIssuer":"https://idp.example","signingKeyRef":"K"})")));
    expect_error(
        with(required_auth(base()), "/auth/issuers/1", j(R"({"issuer":"https://idp.example"})")),
        "/auth/issuers/1/issuer", "duplicate issuer");
}

TEST(ConfigRules, StaticStrategyNeedsAnEnvironmentSecretRef) {
    expect_error(with(base(), "/upstreams/0/auth", j(R"({"strategy":"static"})")),
                 "/upstreams/0/auth/secretRef", "required");
    for (auto bad : {"1KEY", "API-KEY", "$KEY", "sk-live-abcdef", "KEY NAME"}) {
        expect_error(with(base(), "/upstreams/0/auth",
                          json::object{{"strategy", "static"}, {"secretRef", bad}}),
                     "/upstreams/0/auth/secretRef", "not an environment variable name");
    }
    for (auto good : {"KEY", "_key1", "GitHub_Token"}) {
        expect_ok(with(base(), "/upstreams/0/auth",
                       json::object{{"strategy", "static"}, {"secretRef", good}}));
    }
    auto custom = run(with(base(), "/upstreams/0/auth",
                           j(R"({"strategy":"static","secretRef":"K","header":"X-Api-Key",
                                 "scheme":""})")))
                      .doc;
    ASSERT_NE(custom, nullptr);
    EXPECT_EQ(custom->upstreams[0].auth.header, "X-Api-Key");
    EXPECT_EQ(custom->upstreams[0].auth.scheme, "");
    expect_error(with(base(), "/upstreams/0/auth",
                      j(R"({"strategy":"static","secretRef":"K","header":"X Api"})")),
                 "/upstreams/0/auth/header", "header name");
    // A secret never goes where it would frame or route the request, or contradict what gate
    // writes itself.
    for (auto reserved : {"Content-Length", "host", "TRANSFER-ENCODING", "Mcp-Session-Id",
                          "mcp-method", "Content-Type", "traceparent"}) {
        expect_error(
            with(base(), "/upstreams/0/auth",
                 json::object{{"strategy", "static"}, {"secretRef", "K"}, {"header", reserved}}),
            "/upstreams/0/auth/header", "frames or routes the request");
    }
    expect_error(with(base(), "/upstreams/0/auth",
                      j(R"({"strategy":"static","secretRef":"K","scheme":"Bearer x"})")),
                 "/upstreams/0/auth/scheme", "authentication scheme");
}

TEST(ConfigRules, TokenStrategiesNeedTheirFields) {
    auto cc = with(base(), "/upstreams/0/auth", j(R"({"strategy":"client-credentials"})"));
    expect_error(cc, "/upstreams/0/auth/tokenEndpoint", "required");
    expect_error(cc, "/upstreams/0/auth/clientId", "required");
    expect_error(cc, "/upstreams/0/auth/clientAuth", "required");
    auto te = required_auth(with(base(), "/upstreams/0/auth", j(R"({"strategy":"token-exchange",
                                       "tokenEndpoint":"https://idp.example/t","clientId":"c",
                                       "clientAuth":{"type":"client_secret_post",
                                                     "secretRef":"S"}})")));
    expect_error(te, "/upstreams/0/auth/audience", "required");
    expect_ok(with(te, "/upstreams/0/auth/audience", "api"));
    auto ca = with(te, "/upstreams/0/auth/clientAuth", j("{}"));
    expect_error(ca, "/upstreams/0/auth/clientAuth/type", "required");
    expect_error(ca, "/upstreams/0/auth/clientAuth/secretRef", "required");
    expect_error(with(with(te, "/upstreams/0/auth/audience", "api"), "/upstreams/0/auth/scopes",
                      j(R"(["a b"])")),
                 "/upstreams/0/auth/scopes/0", "spaces");
}

TEST(ConfigRules, StrategiesRefuseOtherStrategiesFields) {
    expect_error(with(base(), "/upstreams/0/auth", j(R"({"strategy":"none","secretRef":"K"})")),
                 "/upstreams/0/auth/secretRef", "not used by strategy \"none\"");
    expect_error(with(base(), "/upstreams/0/auth",
                      j(R"({"strategy":"static","secretRef":"K","audience":"x"})")),
                 "/upstreams/0/auth/audience", "not used by strategy \"static\"");
    expect_error(with(base(), "/upstreams/0/auth", j(R"({"secretRef":"K"})")),
                 "/upstreams/0/auth/strategy", "required");
}

json::value with_auth(json::value doc) {
    return with(std::move(doc), "/auth",
                j(R"({"mode":"required","resource":"https://gw.example/mcp",)"
                  R"("issuers":[{"issuer":"https://idp.example"}]})"));
}

TEST(ConfigRules, TenantsNeedASelectorAndKnownUpstreams) {
    auto tenant = [](std::string_view t) {
        return with(with_auth(base()), "/tenants", json::array{json::parse(t)});
    };
    // A tenant is resolved from a verified principal: without auth there is none.
    expect_error(with(base(), "/tenants", j(R"([{"id":"acme","subjects":{"groups":["g"]}}])")),
                 "/tenants", "need auth.mode");
    expect_error(tenant(R"({"id":"acme"})"), "/tenants/0/subjects", "required");
    expect_error(tenant(R"({"id":"acme","subjects":{}})"), "/tenants/0/subjects", "selects nobody");
    expect_error(tenant(R"({"id":"acme","subjects":{"subs":[],"groups":[]}})"),
                 "/tenants/0/subjects", "selects nobody");
    expect_ok(tenant(R"({"id":"acme","subjects":{"claims":{"org":"acme"}}})"));
    expect_error(tenant(R"({"id":"Acme","subjects":{"groups":["g"]}})"), "/tenants/0/id",
                 "lowercase letters, digits and hyphens");
    expect_error(tenant(R"({"id":"acme","subjects":{"groups":["g"]},"upstreams":["gamma"]})"),
                 "/tenants/0/upstreams/0", "not the id of a configured upstream");
    expect_ok(tenant(R"({"id":"acme","subjects":{"groups":["g"]},"upstreams":["beta"]})"));
    auto two = with(with_auth(base()), "/tenants", j(R"([{"id":"acme","subjects":{"groups":["a"]}},
                          {"id":"acme","subjects":{"groups":["b"]}}])"));
    expect_error(two, "/tenants/1/id", "duplicate tenant id");
    expect_error(tenant(R"({"id":"acme","subjects":{"groups":["g"]},
                            "rateLimit":{"requestsPerMinute":0}})"),
                 "/tenants/0/rateLimit/requestsPerMinute", "positive");
    auto empty = run(tenant(R"({"id":"acme","subjects":{"groups":["g"]},"upstreams":[]})")).doc;
    ASSERT_NE(empty, nullptr);
    ASSERT_TRUE(empty->tenants[0].upstreams);
    EXPECT_TRUE(empty->tenants[0].upstreams->empty());
}

TEST(ConfigRules, UnknownUpstreamReferencesPassWhenDiscoveryMaySupplyThem) {
    auto doc = with(with_auth(base()), "/tenants",
                    j(R"([{"id":"acme","subjects":{"groups":["g"]},"upstreams":["gamma"]}])"));
    doc = with(doc, "/policy", j(R"({"rules":[{"id":"r","allow":[{"server":"gamma"}]}]})"));
    auto r = run(doc);
    EXPECT_EQ(r.errors.size(), 2u) << dump(r.errors);
    expect_ok(with(doc, "/discovery", j(R"({"url":"http://127.0.0.1:8500/d"})")));
}

TEST(ConfigRules, PolicyRulesAreUniqueAndNameUpstreams) {
    auto policy = [](std::string_view p) { return with(base(), "/policy", json::parse(p)); };
    expect_ok(policy(R"({"defaultDecision":"allow","rules":[
        {"id":"r1","allow":[{"server":"alpha"}]},
        {"id":"r2","subjects":{"groups":["g"]},"allow":[{"server":"beta","methods":["tools/call"],
                                                          "names":["get_*"]}]}]})"));
    expect_error(policy(R"({"rules":[{"id":"r","allow":[{"server":"a"}]}]})"),
                 "/policy/rules/0/allow/0/server", "\"a\" is not the id of a configured upstream");
    expect_error(policy(R"({"rules":[{"id":"r","allow":[{"server":"*"}]}]})"),
                 "/policy/rules/0/allow/0/server", "not the id");
    expect_error(policy(R"({"rules":[{"id":"r","allow":[{"server":"alpha"}]},
                                     {"id":"r","allow":[{"server":"beta"}]}]})"),
                 "/policy/rules/1/id", "duplicate rule id \"r\"");
    expect_error(policy(R"({"rules":[{"id":"r","allow":[]}]})"), "/policy/rules/0/allow",
                 "at least one grant");
    expect_error(policy(R"({"rules":[{"id":"r"}]})"), "/policy/rules/0/allow", "required");
    expect_error(policy(R"({"rules":[{"allow":[{"server":"beta"}]}]})"), "/policy/rules/0/id",
                 "required");
    expect_error(policy(R"({"rules":[{"id":"r","allow":[{"methods":["tools/call"]}]}]})"),
                 "/policy/rules/0/allow/0/server", "required");
    expect_error(policy(R"({"rules":[{"id":"r","subjects":{},"allow":[{"server":"beta"}]}]})"),
                 "/policy/rules/0/subjects", "omit subjects to match any principal");
}

TEST(ConfigRules, ClaimsAreJsonScalars) {
    auto claims = [](std::string_view c) {
        return with(base(), "/policy/rules",
                    json::array{json::object{{"id", "r"},
                                             {"subjects", {{"claims", json::parse(c)}}},
                                             {"allow", json::array{{{"server", "alpha"}}}}}});
    };
    auto ok = run(claims(R"({"dept":"eng","level":2,"ratio":0.5,"mfa":false})"));
    ASSERT_TRUE(ok.errors.empty()) << dump(ok.errors);
    const auto& c = ok.doc->policy->rules[0].subjects->claims;
    EXPECT_EQ(std::get<std::string>(c.at("dept")), "eng");
    EXPECT_DOUBLE_EQ(std::get<double>(c.at("level")), 2.0);
    EXPECT_DOUBLE_EQ(std::get<double>(c.at("ratio")), 0.5);
    EXPECT_FALSE(std::get<bool>(c.at("mfa")));
    for (auto bad : {R"({"roles":["a"]})", R"({"roles":{"a":1}})", R"({"roles":null})"}) {
        expect_error(claims(bad), "/policy/rules/0/subjects/claims/roles", "JSON scalar");
    }
    // A rule whose only claim is invalid reports that claim, not an empty selector as well.
    auto r = run(claims(R"({"roles":["a"]})"));
    EXPECT_EQ(r.errors.size(), 1u) << dump(r.errors);
}

TEST(ConfigRules, BudgetsAndRateLimitsArePositive) {
    expect_error(with(base(), "/upstreams/0/budget", j(R"({"period":"day"})")),
                 "/upstreams/0/budget/upstreamCalls", "required");
    expect_error(with(base(), "/upstreams/0/budget", j(R"({"upstreamCalls":0})")),
                 "/upstreams/0/budget/upstreamCalls", "positive");
    expect_error(with(base(), "/server/budget", j(R"({"upstreamCalls":-3})")),
                 "/server/budget/upstreamCalls", "positive");
    expect_error(with(base(), "/upstreams/0/rateLimit", j(R"({"requestsPerMinute":0})")),
                 "/upstreams/0/rateLimit/requestsPerMinute", "positive");
    expect_error(with(base(), "/upstreams/0/rateLimit", j(R"({})")),
                 "/upstreams/0/rateLimit/requestsPerMinute", "required");
    expect_error(with(base(), "/upstreams/0/rateLimit",
                      j(R"({"requestsPerMinute":5,"perPrincipalPerMinute":1})")),
                 "/upstreams/0/rateLimit/perPrincipalPerMinute", "unknown field");
    expect_error(with(base(), "/server/rateLimit", j(R"({})")), "/server/rateLimit",
                 "sets no limit");
    expect_error(with(base(), "/server/rateLimit", j(R"({"perPrincipalPerMinute":0})")),
                 "/server/rateLimit/perPrincipalPerMinute", "positive");
    // It counts authenticated principals: without auth there are none.
    expect_error(with(base(), "/server/rateLimit", j(R"({"perPrincipalPerMinute":7})")),
                 "/server/rateLimit/perPrincipalPerMinute", "needs auth.mode");
    auto authed = with(base(), "/auth",
                       j(R"({"mode":"required","resource":"https://gw.example/mcp",)"
                         R"("issuers":[{"issuer":"https://idp.example"}]})"));
    auto doc = run(with(authed, "/server/rateLimit", j(R"({"perPrincipalPerMinute":7})"))).doc;
    ASSERT_NE(doc, nullptr);
    EXPECT_FALSE(doc->server.rate_limit->requests_per_minute);
    EXPECT_EQ(doc->server.rate_limit->per_principal_per_minute, 7);
}

TEST(ConfigRules, GuardsHaveSaneBounds) {
    expect_error(with(base(), "/upstreams/0/timeouts", j(R"({"connectMs":0})")),
                 "/upstreams/0/timeouts/connectMs", "positive");
    expect_error(with(base(), "/upstreams/0/timeouts", j(R"({"requestMs":-1})")),
                 "/upstreams/0/timeouts/requestMs", "positive");
    expect_error(with(base(), "/upstreams/0/circuitBreaker", j(R"({"failureThreshold":0})")),
                 "/upstreams/0/circuitBreaker/failureThreshold", "positive");
    expect_ok(with(base(), "/upstreams/0/circuitBreaker", j(R"({"failureThreshold":1})")));
    expect_ok(with(base(), "/upstreams/0/circuitBreaker", j(R"({"halfOpenAfterMs":0})")));
    expect_error(with(base(), "/upstreams/0/circuitBreaker", j(R"({"halfOpenAfterMs":-1})")),
                 "/upstreams/0/circuitBreaker/halfOpenAfterMs", "zero or a positive");
    expect_error(with(base(), "/upstreams/0/healthCheck", j(R"({"intervalMs":0})")),
                 "/upstreams/0/healthCheck/intervalMs", "positive");
    expect_error(with(base(), "/upstreams/0/healthCheck", j(R"({})")),
                 "/upstreams/0/healthCheck/intervalMs", "required");
    expect_error(with(base(), "/server/maxBodyBytes", 0), "/server/maxBodyBytes", "positive");
}

TEST(ConfigRules, McpPathAvoidsTheGatewaysOwnPaths) {
    for (auto bad : {"/health", "/healthz", "/metrics", "/oauth/token", "/api", "/api/federation",
                     "/api/anything", "/console", "/console/", "/console/app",
                     "/.well-known/oauth-protected-resource", "/.well-known"}) {
        expect_error(with(base(), "/server/mcpPath", bad), "/server/mcpPath", "reserved");
    }
    expect_error(with(base(), "/server/mcpPath", "mcp"), "/server/mcpPath", "must start with");
    expect_error(with(base(), "/server/mcpPath", "/mcp?x=1"), "/server/mcpPath", "plain path");
    for (auto good : {"/", "/v1/mcp", "/apis", "/consoles", "/mcp/"}) {
        expect_ok(with(base(), "/server/mcpPath", good));
    }
}

TEST(ConfigRules, SessionTableBoundsAndEachPrincipalsShare) {
    auto s = [](std::string_view text) { return with(base(), "/server/sessions", j(text)); };
    auto defaults = run(base()).doc;
    ASSERT_NE(defaults, nullptr);
    EXPECT_EQ(defaults->server.sessions.max, 10000);
    EXPECT_EQ(defaults->server.sessions.per_principal, 1000);
    // The default share is never more than the table.
    auto small = run(s(R"({"max":50})")).doc;
    ASSERT_NE(small, nullptr);
    EXPECT_EQ(small->server.sessions.per_principal, 50);
    auto set = run(s(R"({"max":20000,"perPrincipal":7})")).doc;
    ASSERT_NE(set, nullptr);
    EXPECT_EQ(set->server.sessions.max, 20000);
    EXPECT_EQ(set->server.sessions.per_principal, 7);
    expect_ok(s(R"({"max":1000000,"perPrincipal":1000000})"));
    expect_error(s(R"({"max":0})"), "/server/sessions/max", "positive");
    expect_error(s(R"({"max":1000001})"), "/server/sessions/max", "at most 1000000");
    expect_error(s(R"({"perPrincipal":0})"), "/server/sessions/perPrincipal", "positive");
    expect_error(s(R"({"max":10,"perPrincipal":11})"), "/server/sessions/perPrincipal",
                 "is 11, more than the 10 sessions the table holds");
    expect_error(s(R"({"perPrincipal":10001})"), "/server/sessions/perPrincipal",
                 "more than the 10000 sessions");
    expect_error(s(R"({"maxSessions":5})"), "/server/sessions/maxSessions", "");
}

TEST(ConfigRules, AllowedHostsAreHostnamesOrTheSoleWildcard) {
    expect_error(with(base(), "/server/allowedHosts", j("[]")), "/server/allowedHosts",
                 "at least one hostname");
    expect_error(with(base(), "/server/allowedHosts", j(R"(["*","gw.example"])")),
                 "/server/allowedHosts/0", "sole entry");
    expect_error(with(base(), "/server/allowedHosts", j(R"(["gw.example:8443"])")),
                 "/server/allowedHosts/0", "without scheme or port");
    expect_error(with(base(), "/server/allowedHosts", j(R"(["https://gw.example"])")),
                 "/server/allowedHosts/0", "not a hostname");
    auto any = run(with(base(), "/server/allowedHosts", j(R"(["*"])"))).doc;
    ASSERT_NE(any, nullptr);
    EXPECT_TRUE(any->server.allowed_hosts_any);
    auto named =
        run(with(base(), "/server/allowedHosts", j(R"(["GW.Example","[::1]","10.0.0.1"])"))).doc;
    ASSERT_NE(named, nullptr);
    EXPECT_FALSE(named->server.allowed_hosts_any);
    EXPECT_EQ(named->server.allowed_hosts,
              (std::vector<std::string>{"gw.example", "::1", "10.0.0.1"}));
}

TEST(ConfigRules, RedisUrlSchemes) {
    for (auto good : {"redis://127.0.0.1:6379", "redis://cache.internal:6380/2", "redis://r/"}) {
        expect_ok(with(base(), "/server/redisUrl", good));
    }
    expect_error(with(base(), "/server/redisUrl", "http://127.0.0.1:6379"), "/server/redisUrl",
                 "must be a redis:// URL");
    expect_error(with(base(), "/server/redisUrl", "rediss://cache.internal:6380/2"),
                 "/server/redisUrl", "TLS to Redis");
    expect_error(with(base(), "/server/redisUrl", "redis://127.0.0.1:6379/x"), "/server/redisUrl",
                 "database number");
    expect_error(with(base(), "/server/redisUrl", "redis://127.0.0.1:6379/0?db=1"),
                 "/server/redisUrl", "query");
    expect_error(with(base(), "/server/redisUrl", "redis://:hunter2@127.0.0.1"), "/server/redisUrl",
                 "REDIS_URL");
    expect_error(with(base(), "/server/redisUrl", "127.0.0.1:6379"), "/server/redisUrl",
                 "not a valid URL");
}

TEST(ConfigRules, ConsoleNeedsIntrospection) {
    expect_error(with(base(), "/server/console", j(R"({"enabled":true})")),
                 "/server/console/enabled", "needs server.introspection.enabled");
    expect_error(with(with(base(), "/server/console", j(R"({"enabled":true})")),
                      "/server/introspection", j(R"({"enabled":false})")),
                 "/server/console/enabled", "introspection");
    auto doc = with(with(base(), "/server/console", j(R"({"enabled":true})")),
                    "/server/introspection", j(R"({"enabled":true})"));
    expect_ok(doc);
    EXPECT_TRUE(run(doc).doc->server.console_enabled);
    expect_ok(with(base(), "/server/introspection", j(R"({"enabled":true})")));
}

TEST(ConfigRules, AuditSinks) {
    expect_error(with(base(), "/audit", j("{}")), "/audit/sinks", "required");
    expect_ok(with(base(), "/audit", j(R"({"sinks":[]})")));
    expect_error(with(base(), "/audit", j(R"({"sinks":[{"type":"webhook"}]})")),
                 "/audit/sinks/0/url", "required");
    expect_error(with(base(), "/audit", j(R"({"sinks":[{"type":"webhook","url":"ftp://x"}]})")),
                 "/audit/sinks/0/url", "http:// or https://");
    expect_error(with(base(), "/audit", j(R"({"sinks":[{"type":"stdout","url":"http://x"}]})")),
                 "/audit/sinks/0/url", "not used by sink type \"stdout\"");
    expect_error(with(base(), "/audit", j(R"({"sinks":[{"type":"webhook","url":"http://x",
                                      "headers":{"Bad Name":"v"}}]})")),
                 "/audit/sinks/0/headers/Bad Name", "header name");
    expect_error(with(base(), "/audit", j(R"({"sinks":[{}]})")), "/audit/sinks/0/type", "required");
}

TEST(ConfigRules, TracingEndpointIsNormalised) {
    auto endpoint = [](std::string_view url) {
        auto r = run(with(base(), "/tracing", json::object{{"otlpEndpoint", url}}));
        EXPECT_TRUE(r.errors.empty()) << dump(r.errors);
        return r.doc ? r.doc->tracing->otlp_endpoint : std::string();
    };
    EXPECT_EQ(endpoint("http://127.0.0.1:4318"), "http://127.0.0.1:4318/v1/traces");
    EXPECT_EQ(endpoint("http://127.0.0.1:4318/"), "http://127.0.0.1:4318/v1/traces");
    EXPECT_EQ(endpoint("https://otel.example?tenant=a"), "https://otel.example/v1/traces?tenant=a");
    EXPECT_EQ(endpoint("https://otel.example/custom/traces"), "https://otel.example/custom/traces");
    EXPECT_EQ(endpoint("http://[::1]:4318"), "http://[::1]:4318/v1/traces");
    expect_error(with(base(), "/tracing", j(R"({"otlpEndpoint":"grpc://c:4317"})")),
                 "/tracing/otlpEndpoint", "http:// or https://");
    expect_error(with(base(), "/tracing", j(R"({"serviceName":"x"})")), "/tracing/otlpEndpoint",
                 "required");
}

TEST(ConfigRules, SampleRatioIsWithinZeroAndOne) {
    auto ratio = [](json::value v) {
        return with(base(), "/tracing",
                    json::object{{"otlpEndpoint", "http://127.0.0.1:4318"}, {"sampleRatio", v}});
    };
    expect_ok(ratio(0));
    expect_ok(ratio(1));
    expect_ok(ratio(0.5));
    expect_error(ratio(1.5), "/tracing/sampleRatio", "between 0 and 1");
    expect_error(ratio(-0.1), "/tracing/sampleRatio", "between 0 and 1");
}

TEST(ConfigRules, DiscoveryFields) {
    auto d = [](std::string_view text) { return with(base(), "/discovery", json::parse(text)); };
    expect_ok(d(R"({"url":"https://registry.example/upstreams.json","intervalMs":5000,
                    "bearerSecretRef":"REGISTRY_TOKEN","allowedSecretRefs":["A","B_2"],
                    "allowedStrategies":["static","passthrough","none"],
                    "allowedCredentialHosts":["Search.Internal","10.0.0.7"]})"));
    auto doc =
        run(d(R"({"url":"http://127.0.0.1:8500/d","allowedCredentialHosts":["A.Example"]})")).doc;
    ASSERT_NE(doc, nullptr);
    EXPECT_EQ(doc->discovery->allowed_credential_hosts, std::vector<std::string>{"a.example"});
    expect_error(d(R"({})"), "/discovery/url", "required");
    expect_error(d(R"({"url":"file:///etc/upstreams.json"})"), "/discovery/url", "http");
    expect_error(d(R"({"url":"http://r/d","intervalMs":0})"), "/discovery/intervalMs", "positive");
    expect_error(d(R"({"url":"http://r/d","bearerSecretRef":"Bearer abc"})"),
                 "/discovery/bearerSecretRef", "environment variable name");
    // Absent and empty lists both allow nothing, so `[]` is accepted and means absence.
    auto empty = run(d(R"({"url":"http://r/d","allowedSecretRefs":[],"allowedStrategies":[],
                           "allowedCredentialHosts":[]})"))
                     .doc;
    ASSERT_NE(empty, nullptr);
    EXPECT_TRUE(empty->discovery->allowed_secret_refs.empty());
    EXPECT_TRUE(empty->discovery->allowed_strategies.empty());
    expect_error(d(R"({"url":"http://r/d","allowedStrategies":["bearer"]})"),
                 "/discovery/allowedStrategies/0", "auth strategy");
    expect_error(d(R"({"url":"http://r/d","allowedSecretRefs":["A-B"]})"),
                 "/discovery/allowedSecretRefs/0", "environment variable name");
    expect_error(d(R"({"url":"http://r/d","allowedCredentialHosts":["*.svc.local"]})"),
                 "/discovery/allowedCredentialHosts/0", "hostname");
    expect_error(d(R"({"url":"http://r/d","allowedCredentialHosts":["h:443"]})"),
                 "/discovery/allowedCredentialHosts/0", "hostname");
}

} // namespace
} // namespace gate::config
