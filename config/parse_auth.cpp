#include "config/checks.hpp"
#include "config/parse_sections.hpp"

#include <map>

namespace gate::config::detail {

namespace {

std::string default_jwks(std::string issuer) {
    if (!issuer.empty() && issuer.back() == '/') {
        issuer.pop_back();
    }
    return issuer + "/.well-known/jwks.json";
}

void parse_issuers(const object_view& a, bool has_ema, std::vector<issuer>& out) {
    const auto* arr = a.array("issuers");
    if (arr == nullptr) {
        return;
    }
    std::map<std::string, std::string> seen;
    std::string base = a.pointer_of("issuers");
    for (std::size_t i = 0; i < arr->size(); ++i) {
        object_view o((*arr)[i], child_pointer(base, i), a.errors(),
                      {"issuer", "jwksUri", "groupsClaim", "mode"});
        if (!o.ok()) {
            continue;
        }
        issuer iss;
        o.require("issuer", "the issuer URL (the tokens' iss claim)");
        auto url = read_http_url(o, "issuer", true);
        if (url) {
            if (auto [it, fresh] = seen.emplace(*url, o.pointer_of("issuer")); !fresh) {
                o.fail("issuer", "duplicate issuer " + quoted(*url) + " (already listed at " +
                                     it->second + ")");
            }
            iss.issuer = *url;
        }
        iss.jwks_uri = read_http_url(o, "jwksUri", true).value_or(default_jwks(iss.issuer));
        iss.groups_claim = o.string("groupsClaim");
        if (auto mode = o.one_of("mode", {"direct", "exchange"})) {
            iss.exchange_only = *mode == "exchange";
            if (iss.exchange_only && !has_ema) {
                o.fail("mode", "\"exchange\" needs auth.ema: such an issuer's assertions are "
                               "accepted only at the gateway's token endpoint, which exists only "
                               "with auth.ema");
            }
        }
        out.push_back(std::move(iss));
    }
}

std::optional<ema> parse_ema(const object_view& a) {
    const auto* v = a.find("ema");
    if (v == nullptr) {
        return std::nullopt;
    }
    object_view o(
        *v, a.pointer_of("ema"), a.errors(),
        {"idpIssuer", "idpJwksUri", "signingKeyRef", "tokenTtlSec", "tokenRateLimitPerMinute"});
    if (!o.ok()) {
        return std::nullopt;
    }
    ema e;
    o.require("idpIssuer", "the identity provider whose ID-JAG assertions are accepted");
    e.idp_issuer = read_http_url(o, "idpIssuer", true).value_or("");
    e.idp_jwks_uri = read_http_url(o, "idpJwksUri", true).value_or(default_jwks(e.idp_issuer));
    o.require("signingKeyRef", "the name of the environment variable holding the ES256 "
                               "private key (PKCS#8 PEM)");
    e.signing_key_ref = read_env_name(o, "signingKeyRef").value_or("");
    e.token_ttl_sec = o.integer("tokenTtlSec", bound::positive).value_or(600);
    e.token_rate_limit_per_minute =
        o.integer("tokenRateLimitPerMinute", bound::positive).value_or(600);
    return e;
}

// auth.introspection: {url, clientId, clientAuth, issuer?, cacheSeconds?}.
std::optional<introspection> parse_introspection(const object_view& a) {
    const auto* v = a.find("introspection");
    if (v == nullptr) {
        return std::nullopt;
    }
    object_view o(*v, a.pointer_of("introspection"), a.errors(),
                  {"url", "clientId", "clientAuth", "issuer", "cacheSeconds"});
    if (!o.ok()) {
        return std::nullopt;
    }
    introspection in;
    o.require("url", "the RFC 7662 introspection endpoint opaque tokens are asked about at");
    in.url = read_http_url(o, "url", true).value_or("");
    o.require("clientId", "gate's client id at the introspection endpoint");
    in.client_id = o.string("clientId").value_or("");
    o.require("clientAuth", "{type, secretRef}: how gate authenticates to the endpoint");
    in.auth = parse_client_auth(o).value_or(client_auth{});
    in.issuer = read_http_url(o, "issuer", false);
    in.cache_seconds = o.integer("cacheSeconds", bound::positive).value_or(60);
    if (in.cache_seconds > 3600)
        o.fail("cacheSeconds", "at most 3600: an answer is not believed longer than an hour "
                               "(a revoked token stays accepted for as long)");
    return in;
}

} // namespace

void parse_auth(const object_view& root, config::auth& out) {
    const auto* v = root.find("auth");
    if (v == nullptr) {
        return;
    }
    object_view o(*v, root.pointer_of("auth"), root.errors(),
                  {"mode", "resource", "issuers", "ema", "introspection"});
    if (!o.ok()) {
        return;
    }
    auto mode = o.one_of("mode", {"disabled", "required"});
    bool mode_known = mode.has_value() || !o.has("mode");
    out.required = mode == "required";
    out.resource = read_http_url(o, "resource", false);
    auto errors_before = o.errors().count();
    parse_issuers(o, o.has("ema"), out.issuers);
    bool issuers_failed = o.errors().count() != errors_before;
    out.ema = parse_ema(o);
    out.introspection = parse_introspection(o);
    if (o.has("introspection") && mode_known && !out.required) {
        o.fail("introspection", "needs auth.mode \"required\": it decides who a caller is");
    }

    if (o.has("ema") && mode_known && !out.required) {
        o.fail("ema", "needs auth.mode \"required\": the gateway mints access tokens only for "
                      "an authenticated endpoint");
    }
    if (!out.required) {
        return;
    }
    if (!o.has("resource")) {
        o.fail("resource", "required when auth.mode is \"required\": it is the audience every "
                           "accepted token must carry (RFC 8707)");
    }
    if (out.issuers.empty() && !o.has("ema") && !o.has("introspection") && !issuers_failed) {
        o.fail("issuers", "required when auth.mode is \"required\": list at least one trusted "
                          "issuer, or configure auth.ema or auth.introspection");
    }
}

} // namespace gate::config::detail
