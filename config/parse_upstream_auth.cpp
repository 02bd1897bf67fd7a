#include "config/checks.hpp"
#include "config/parse_sections.hpp"

#include <array>

namespace gate::config::detail {

namespace {

struct strategy_fields {
    std::string_view name;
    std::vector<std::string_view> fields;
};

// Fields each strategy reads. A field another strategy reads is refused rather than ignored:
// it almost always means the strategy name is not the one the author meant.
const std::array<strategy_fields, 6>& strategies() {
    static const std::array<strategy_fields, 6> table{{
        {"none", {"strategy"}},
        {"static", {"strategy", "secretRef", "header", "scheme"}},
        {"passthrough", {"strategy"}},
        {"client-credentials",
         {"strategy", "tokenEndpoint", "clientId", "clientAuth", "scopes", "resource"}},
        {"token-exchange",
         {"strategy", "tokenEndpoint", "clientId", "clientAuth", "audience", "scopes"}},
        {"user-account",
         {"strategy", "clientId", "clientAuth", "scopes", "resource", "authorizationServer"}},
    }};
    return table;
}

void refuse_foreign_fields(const object_view& o, const json::object& obj,
                           const strategy_fields& s) {
    for (const auto& member : obj) {
        std::string_view key = member.key();
        bool used = false;
        for (auto f : s.fields) {
            used = used || f == key;
        }
        bool known = false;
        for (const auto& other : strategies()) {
            for (auto f : other.fields) {
                known = known || f == key;
            }
        }
        if (known && !used) {
            o.fail(key, "is not used by strategy " + quoted(s.name) + "; its fields are " +
                            quoted_list(s.fields));
        }
    }
}

std::optional<std::vector<std::string>> read_scopes(const object_view& o) {
    auto scopes = o.strings("scopes");
    if (!scopes) {
        return std::nullopt;
    }
    for (std::size_t i = 0; i < scopes->size(); ++i) {
        if ((*scopes)[i].find_first_of(" \t\r\n\"\\") != std::string::npos) {
            o.errors().add(child_pointer(o.pointer_of("scopes"), i),
                           "a scope must not contain spaces, quotes or backslashes (list each "
                           "scope as its own entry)");
        }
    }
    return scopes;
}

void read_token_client(const object_view& o, upstream_auth& a, std::string_view strategy) {
    std::string what = "the token endpoint URL of strategy " + quoted(strategy);
    o.require("tokenEndpoint", what);
    a.token_endpoint = read_http_url(o, "tokenEndpoint", true).value_or("");
    o.require("clientId", "the OAuth client id the gateway presents");
    a.client_id = o.string("clientId").value_or("");
    o.require("clientAuth", "{type, secretRef}: how the gateway authenticates as that client");
    a.client_auth_ = parse_client_auth(o);
    a.scopes = read_scopes(o).value_or(std::vector<std::string>{});
}

void read_resource(const object_view& o, upstream_auth& a) {
    if (auto resource = o.string("resource")) {
        std::string why;
        auto url = parse_url(*resource, why);
        if (!url || url->has_fragment) {
            o.fail("resource",
                   quoted(*resource) + " is not an absolute URI without a fragment (RFC 8707)");
        } else {
            a.resource = *resource;
        }
    }
}

// user-account: gate's OAuth client at the upstream's authorization server (its id, and a
// secret for a confidential one; neither: dynamic registration), the scopes asked, the
// resource named, and the server when it is not discovered.
void read_user_account(const object_view& o, const facts& f, upstream_auth& a) {
    a.client_id = o.string("clientId").value_or("");
    a.client_auth_ = parse_client_auth(o);
    if (a.client_auth_ && a.client_id.empty() && !o.errors().failed(o.pointer_of("clientId")))
        o.fail("clientAuth", "needs clientId: the secret authenticates that client (without "
                             "either, gate registers itself at the authorization server)");
    a.scopes = read_scopes(o).value_or(std::vector<std::string>{});
    read_resource(o, a);
    if (auto as = o.string("authorizationServer")) {
        std::string why;
        auto url = parse_url(*as, why);
        if (!url || (url->scheme != "http" && url->scheme != "https") || url->has_query ||
            url->has_fragment || url->has_userinfo)
            o.fail("authorizationServer",
                   quoted(*as) + " is not an issuer URL (http(s), no query or fragment)");
        else
            a.authorization_server = *as;
    }
    if (f.auth_mode_known && !f.auth_required)
        o.fail("strategy", "\"user-account\" needs auth.mode \"required\": each user's account "
                           "is kept for the verified caller, and anonymous callers are no one");
    if (!f.public_url)
        o.fail("strategy", "\"user-account\" needs server.publicUrl: the address browsers reach "
                           "gate at, where users are sent to sign in and come back to");
}

} // namespace

std::optional<client_auth> parse_client_auth(const object_view& parent) {
    const auto* v = parent.find("clientAuth");
    if (v == nullptr) {
        return std::nullopt;
    }
    object_view o(*v, parent.pointer_of("clientAuth"), parent.errors(), {"type", "secretRef"});
    if (!o.ok()) {
        return std::nullopt;
    }
    client_auth ca;
    o.require("type", "how the gateway authenticates to the token endpoint "
                      "(\"client_secret_post\" or \"client_secret_basic\")");
    ca.type = o.one_of("type", {"client_secret_post", "client_secret_basic"}).value_or("");
    o.require("secretRef", "the name of the environment variable holding the client secret");
    ca.secret_ref = read_env_name(o, "secretRef").value_or("");
    return ca;
}

void parse_upstream_auth(const object_view& parent, const facts& f, upstream_auth& a) {
    const auto* v = parent.find("auth");
    if (v == nullptr) {
        return;
    }
    object_view o(*v, parent.pointer_of("auth"), parent.errors(),
                  {"strategy", "secretRef", "header", "scheme", "tokenEndpoint", "clientId",
                   "clientAuth", "scopes", "resource", "audience", "authorizationServer"});
    if (!o.ok()) {
        return;
    }
    o.require("strategy", "one of \"none\", \"static\", \"passthrough\", \"client-credentials\", "
                          "\"token-exchange\", \"user-account\"");
    auto strategy = o.one_of("strategy", {"none", "static", "passthrough", "client-credentials",
                                          "token-exchange", "user-account"});
    if (!strategy) {
        return;
    }
    a.strategy = *strategy;
    for (const auto& s : strategies()) {
        if (s.name == *strategy) {
            refuse_foreign_fields(o, v->get_object(), s);
        }
    }
    if (a.strategy == "static") {
        o.require("secretRef", "the name of the environment variable holding the credential");
        a.secret_ref = read_env_name(o, "secretRef").value_or("");
        if (auto header = o.string("header")) {
            if (is_http_token(*header) && is_reserved_request_header(*header)) {
                o.fail("header", quoted(*header) +
                                     " frames or routes the request, or gate writes it itself; a "
                                     "secret may go in any header but " +
                                     std::string(reserved_request_headers_text()));
            } else if (is_http_token(*header)) {
                a.header = *header;
            } else {
                o.fail("header", quoted(*header) + " is not a valid HTTP header name");
            }
        }
        if (auto scheme = o.string("scheme", true)) {
            if (scheme->empty() || is_http_token(*scheme)) {
                a.scheme = *scheme;
            } else {
                o.fail("scheme", quoted(*scheme) +
                                     " is not a valid authentication scheme; use a single word "
                                     "such as \"Bearer\", or \"\" to send the bare secret");
            }
        }
    } else if (a.strategy == "client-credentials") {
        read_token_client(o, a, a.strategy);
        read_resource(o, a);
    } else if (a.strategy == "user-account") {
        read_user_account(o, f, a);
    } else if (a.strategy == "token-exchange") {
        read_token_client(o, a, a.strategy);
        o.require("audience", "the audience of the exchanged token (RFC 8693)");
        a.audience = o.string("audience").value_or("");
    }
    bool caller_derived = a.strategy == "passthrough" || a.strategy == "token-exchange";
    if (caller_derived && f.auth_mode_known && !f.auth_required) {
        o.fail("strategy", quoted(a.strategy) +
                               " needs auth.mode \"required\": it uses the verified caller's "
                               "token, and anonymous callers have none");
    }
}

} // namespace gate::config::detail
