#include "gateway/program/check_hints.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <cctype>
#include <cstring>
#include <utility>

namespace gate::gateway::program::check {

namespace {

bool has(std::string_view text, std::string_view part) {
    auto lower = [](unsigned char c) { return static_cast<char>(std::tolower(c)); };
    return std::search(text.begin(), text.end(), part.begin(), part.end(),
                       [&](char a, char b) { return lower(a) == lower(b); }) != text.end();
}

std::string ms_text(std::chrono::milliseconds t) {
    return std::to_string(t.count()) + " ms";
}

std::string with(std::string_view a, std::string_view b) {
    return std::string(a) + std::string(b);
}

// The hint for an HTTP status every peer answers alike; "" for the others.
std::string common_status_hint(int status, std::string_view target) {
    if (status == 404)
        return "HTTP 404: nothing is served at this path: check the URL (" + std::string(target) +
               ")";
    if (status >= 300 && status < 400)
        return "HTTP " + std::to_string(status) +
               ": a redirect, which gate never follows: configure the URL it points to";
    if (status >= 500)
        return "HTTP " + std::to_string(status) + ": it is failing: its own log says why";
    return "";
}

} // namespace

std::string without_userinfo(std::string_view url) {
    auto scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos)
        return std::string(url);
    auto authority = scheme_end + 3;
    auto end = url.find_first_of("/?# \t\"'", authority);
    auto at =
        url.substr(authority, end == std::string_view::npos ? end : end - authority).rfind('@');
    if (at == std::string_view::npos)
        return std::string(url);
    return with(url.substr(0, authority), "***") + std::string(url.substr(authority + at));
}

std::string scrubbed(std::string_view text) {
    std::string out;
    for (;;) {
        auto scheme_end = text.find("://");
        if (scheme_end == std::string_view::npos)
            return out + std::string(text);
        // Back to the scheme's start, then on to the end of the URL.
        auto start = scheme_end;
        while (start > 0 &&
               (std::isalnum(static_cast<unsigned char>(text[start - 1])) ||
                text[start - 1] == '+' || text[start - 1] == '-' || text[start - 1] == '.'))
            --start;
        auto end = text.find_first_of(" \t\n\"'<>", scheme_end);
        if (end == std::string_view::npos)
            end = text.size();
        out +=
            std::string(text.substr(0, start)) + without_userinfo(text.substr(start, end - start));
        text.remove_prefix(end);
    }
}

std::string network_hint(std::string_view message, std::string_view target, std::string_view what,
                         std::chrono::milliseconds timeout) {
    std::string at(target);
    if (has(message, "connection refused"))
        return "connection refused: is " + std::string(what) + " running at " + at + "?";
    if (has(message, "cannot resolve") || has(message, "host not found"))
        return "the host name does not resolve: check the host in " + at + " (and DNS)";
    if (has(message, "certificate") || has(message, "verify failed"))
        return "TLS: certificate not trusted or not for this host: check the server's "
               "certificate chain and name (SSL_CERT_FILE / SSL_CERT_DIR select gate's trust "
               "store)";
    if (has(message, "wrong version number") || has(message, "packet length too long") ||
        has(message, "TLS handshake failed"))
        return "TLS handshake failed: is it an https:// server? A plain HTTP server needs "
               "http://";
    if (has(message, "timeout") || has(message, "did not answer within") ||
        has(message, "no answer within"))
        return "no answer within " + ms_text(timeout) + ": " + std::string(what) +
               " is hung or overloaded, or a firewall drops the packets (--timeout-ms waits "
               "longer)";
    if (has(message, "end of stream") || has(message, "connection reset") ||
        has(message, "stream truncated"))
        return "the connection was closed without an answer: is " + at +
               " an HTTP server (https:// for a TLS one)?";
    if (has(message, "no route to host") || has(message, "network is unreachable"))
        return "no route to " + at + ": check the address and the network";
    return "";
}

std::string upstream_hint(const config::upstream& u, std::string_view target, failure f, int status,
                          std::string_view message, std::chrono::milliseconds timeout) {
    const auto& a = u.auth;
    if (f == failure::credential) {
        auto net = network_hint(message, a.token_endpoint, "the token endpoint", timeout);
        return "gate could not get its token from " + a.token_endpoint +
               ": check auth.tokenEndpoint, auth.clientId and the client secret in env " +
               (a.client_auth_ ? a.client_auth_->secret_ref : std::string("(none)")) +
               (net.empty() ? "" : "; " + net);
    }
    if (f == failure::status && (status == 401 || status == 403)) {
        auto code = "HTTP " + std::to_string(status) + ": ";
        if (a.strategy == "static")
            return code + "the upstream refused the credential: check the secret in env " +
                   a.secret_ref + " (sent in " + a.header + ")";
        if (a.strategy == "client-credentials")
            return code + "the upstream refused the token from " + a.token_endpoint +
                   ": check the client's scopes, resource and the upstream's audience";
        return code + "the upstream wants a credential: give it one in upstreams[].auth";
    }
    if (f == failure::status) {
        if (status == 404)
            return "HTTP 404: no MCP endpoint at this path: check the URL's path (often /mcp)";
        if (status == 405 || status == 406 || status == 415)
            return "HTTP " + std::to_string(status) +
                   ": not a streamable HTTP MCP endpoint (an SSE-only server needs a bridge)";
        if (auto h = common_status_hint(status, target); !h.empty())
            return h;
        return "HTTP " + std::to_string(status) + ": the upstream refused the handshake";
    }
    if (auto h = network_hint(message, target, "the upstream", timeout); !h.empty())
        return h;
    if (f == failure::content)
        return "it answered, but not as an MCP server: is " + std::string(target) +
               " its MCP endpoint?";
    return "";
}

std::vector<std::string> challenge_schemes(std::string_view c) {
    // RFC 9110 section 11.6.1: challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ],
    // challenges separated by commas. A word not followed by '=' is a scheme (a token68 ends
    // in '=' or stands after its scheme, which the word before it shows).
    std::vector<std::string> out;
    auto word = [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) ||
               (ch != '\0' && std::strchr("!#$%&'*+-.^_`|~/", ch));
    };
    bool after_scheme = false; // the next word may be a token68, not a scheme
    for (std::size_t i = 0; i < c.size();) {
        if (c[i] == '"') { // a quoted string: to its closing quote, escapes skipped
            for (++i; i < c.size() && c[i] != '"'; ++i)
                if (c[i] == '\\')
                    ++i;
            ++i;
            after_scheme = false;
            continue;
        }
        if (c[i] == ',') {
            after_scheme = false;
            ++i;
            continue;
        }
        if (!word(c[i])) {
            ++i;
            continue;
        }
        auto start = i;
        while (i < c.size() && word(c[i]))
            ++i;
        auto next = c.find_first_not_of(' ', i);
        bool param = next != std::string_view::npos && c[next] == '=';
        if (!param && !after_scheme) {
            out.emplace_back(c.substr(start, i - start));
            after_scheme = true;
        } else if (param) { // its value: a quoted string (read above) or a token
            after_scheme = false;
            i = c.find_first_not_of(' ', next + 1);
            if (i == std::string_view::npos)
                break;
            while (i < c.size() && c[i] != '"' && word(c[i]))
                ++i;
        }
    }
    return out;
}

std::string per_caller_unchecked(const config::upstream& u) {
    const auto& a = u.auth;
    if (a.strategy == "user-account")
        return "each user's login at the upstream's authorization server (found from its "
               "protected resource metadata" +
               std::string(a.authorization_server ? ", or " + *a.authorization_server : "") +
               ") and the calls made with its token: only a user's own call through gate tries "
               "them";
    return (a.strategy == "token-exchange"
                ? "the exchange of a caller's token at " + a.token_endpoint +
                      ", whether the upstream accepts the token it issues"
                : std::string("whether the upstream accepts a caller's token")) +
           ", and the handshake and lists made with it: only a caller's own request through "
           "gate tries them";
}

per_caller_verdict judge_per_caller(const config::upstream& u, std::string_view target, int status,
                                    std::string_view challenge, std::string_view identity,
                                    std::chrono::milliseconds timeout) {
    per_caller_verdict v;
    const auto& a = u.auth;
    v.unchecked = per_caller_unchecked(u);
    auto code = "HTTP " + std::to_string(status);
    if (status == 401 || status == 403) {
        auto schemes = challenge_schemes(challenge);
        bool bearer = std::any_of(schemes.begin(), schemes.end(), [](const std::string& s) {
            return s.size() == 6 && has(s, "bearer");
        });
        auto said = "the handshake without a credential answered " + code +
                    (challenge.empty()
                         ? std::string(" with no WWW-Authenticate challenge")
                         : " with WWW-Authenticate: " + std::string(challenge.substr(0, 300)));
        if (!schemes.empty() && !bearer) {
            v.detail = said;
            v.hint = code + ": it asks for " + schemes.front() +
                     " credentials, which a caller's Bearer token (" + a.strategy +
                     ") never is: give the upstream its own credential (auth.strategy static, "
                     "with its header and scheme)";
            return v;
        }
        v.up = true;
        v.detail = "reachable, and its MCP endpoint asks for a caller's credential: " + said;
        return v;
    }
    if (status == 200 && !identity.empty()) {
        v.up = true;
        v.detail = "MCP handshake answered by " + std::string(identity) +
                   " without any credential: it does not ask for the caller's, which gate " +
                   (a.strategy == "token-exchange" ? "exchanges and sends" : "sends") +
                   " it all the same";
        return v;
    }
    v.detail = "the handshake without a credential answered " + code;
    v.hint = upstream_hint(u, target, status == 200 ? failure::content : failure::status, status,
                           v.detail, timeout);
    return v;
}

std::string token_endpoint_probe_form() {
    return "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange";
}

namespace {

// An OAuth error answer's `error` and `error_description` (RFC 6749 section 5.2); `error`
// empty when the body is not one.
std::pair<std::string, std::string> oauth_error_of(std::string_view body) {
    boost::system::error_code ec;
    auto doc = boost::json::parse(body, ec);
    if (ec || !doc.is_object())
        return {};
    auto text = [&](std::string_view key) {
        auto* v = doc.as_object().if_contains(key);
        return v && v->is_string() ? std::string(std::string_view(v->get_string()).substr(0, 200))
                                   : std::string();
    };
    return {text("error"), text("error_description")};
}

} // namespace

std::string token_endpoint_unchecked(const config::upstream& u) {
    const auto& a = u.auth;
    return "gate's client authentication there (auth.clientId" +
           (a.client_auth_ ? ", the secret in env " + a.client_auth_->secret_ref : std::string()) +
           ") and the exchange of a caller's token for one with audience " + a.audience +
           ": only a caller's own request through gate tries them";
}

per_caller_verdict judge_token_endpoint(const config::upstream& u, std::string_view target,
                                        int status, std::string_view body) {
    per_caller_verdict v;
    v.unchecked = token_endpoint_unchecked(u);
    auto [error, description] = oauth_error_of(body);
    auto code = "HTTP " + std::to_string(status);
    v.detail =
        "a token exchange request with no client credentials and no token answered " + code +
        (error.empty() ? std::string(" with no OAuth error in it")
                       : " " + error + (description.empty() ? "" : " (" + description + ")"));
    if (error == "unsupported_grant_type") {
        v.hint = code +
                 ": it does not take token exchange (RFC 8693, grant type "
                 "urn:ietf:params:oauth:grant-type:token-exchange): turn it on at the identity "
                 "provider, or point auth.tokenEndpoint at a server that exchanges tokens";
        return v;
    }
    if ((status == 400 || status == 401) && !error.empty()) {
        v.up = true;
        v.detail = "reachable, and it answers as an OAuth token endpoint: " + v.detail;
        return v;
    }
    auto itself = "auth.tokenEndpoint must be the token endpoint itself (token_endpoint in the "
                  "identity provider's discovery document)";
    if (status == 404)
        v.hint = common_status_hint(status, target) + "; " + itself;
    else if (status == 405)
        v.hint = code + ": it does not take a POST: " + itself + ", not the issuer or a page";
    else if (auto h = common_status_hint(status, target); !h.empty())
        v.hint = h;
    else
        v.hint = code + ": not an OAuth token endpoint's answer (RFC 6749 section 5.2: an error " +
                 "is a 400 or 401 with a JSON object naming it): is " + std::string(target) +
                 " the token endpoint, with nothing in front of it answering instead?";
    return v;
}

std::string key_set_hint(std::string_view target, failure f, int status, std::string_view message,
                         std::chrono::milliseconds timeout) {
    if (f == failure::content)
        return "not a JWK set: jwksUri must point at the key set itself (it defaults to "
               "{issuer}/.well-known/jwks.json), not a page or the discovery document";
    if (f == failure::status) {
        if (auto h = common_status_hint(status, target); !h.empty())
            return h + (status == 404 ? "; set auth.issuers[].jwksUri if the issuer serves its "
                                        "keys elsewhere"
                                      : "");
        return "HTTP " + std::to_string(status) + ": the key set is not served to gate";
    }
    return network_hint(message, target, "the identity provider", timeout);
}

std::string store_hint(std::string_view target, std::string_view source, failure f,
                       std::string_view message, std::chrono::milliseconds timeout) {
    if (f == failure::content) {
        if (has(message, "NOAUTH") || has(message, "WRONGPASS") || has(message, "invalid password"))
            return "Redis refused gate's credentials: check the user and password in REDIS_URL "
                   "(server.redisUrl never holds them)";
        return "it answered, but not as Redis: check the port in " + std::string(source);
    }
    if (auto h = network_hint(message, target, "Redis", timeout); !h.empty())
        return h;
    return "check " + std::string(source);
}

std::string receiver_hint(bool otlp, std::string_view target, failure f, int status,
                          std::string_view message, std::chrono::milliseconds timeout) {
    std::string_view what = otlp ? "the OTLP collector" : "the audit receiver";
    if (f == failure::status) {
        if (status == 401 || status == 403)
            return "HTTP " + std::to_string(status) + ": " + std::string(what) + " refused gate: " +
                   (otlp ? "gate sends no credential to a collector: allow it there"
                         : "check the sink's headers (a receiver's token)");
        if (otlp && status == 404)
            return "HTTP 404: check tracing.otlpEndpoint (gate appends /v1/traces to a bare "
                   "base URL)";
        if (otlp && status == 415)
            return "HTTP 415: the collector does not take OTLP/HTTP with the JSON encoding";
        if (auto h = common_status_hint(status, target); !h.empty())
            return h;
        return "HTTP " + std::to_string(status) + ": " + std::string(what) + " refused " +
               (otlp ? "an export with no spans" : "an empty batch ([])") +
               ", which it must accept to take gate's";
    }
    return network_hint(message, target, what, timeout);
}

std::string discovery_hint(const config::discovery& d, failure f, int status,
                           std::string_view message, std::chrono::milliseconds timeout) {
    if (f == failure::credential)
        return "set " + d.bearer_secret_ref.value_or("") +
               " in the environment gate runs with (the unit's EnvironmentFile)";
    if (f == failure::content)
        return "the source serves a document gate would reject (nothing of it would apply): "
               "fix it at the source";
    if (f == failure::status && (status == 401 || status == 403))
        return "HTTP " + std::to_string(status) + ": the source refused gate: " +
               (d.bearer_secret_ref ? "check the token in env " + *d.bearer_secret_ref
                                    : std::string("set discovery.bearerSecretRef"));
    if (f == failure::status) {
        if (auto h = common_status_hint(status, d.url); !h.empty())
            return h;
        return "HTTP " + std::to_string(status) + ": the source must answer 200";
    }
    return network_hint(message, d.url, "the discovery source", timeout);
}

} // namespace gate::gateway::program::check
