#include "config/discovery_containment.hpp"

#include <algorithm>
#include <array>
#include <boost/url/parse.hpp>
#include <cctype>
#include <string_view>

namespace gate::config {

namespace {

std::string lower(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string host_of(const std::string& url) {
    auto u = boost::urls::parse_uri(url);
    if (!u)
        return {};
    std::string host = u->host();
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    return lower(std::move(host));
}

bool listed(const std::vector<std::string>& list, std::string_view v) {
    return std::find(list.begin(), list.end(), v) != list.end();
}

std::string quoted(std::string_view s) {
    return "\"" + std::string(s) + "\"";
}

std::string joined(const std::vector<std::string>& items, bool quote) {
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : ", ") + (quote ? quoted(item) : item);
    return out;
}

// What each strategy hands the upstream (or its token endpoint), for the refusal message.
std::string_view carries(std::string_view strategy) {
    if (strategy == "static")
        return "a secret from gate's environment";
    if (strategy == "client-credentials")
        return "gate's client secret, posted to its token endpoint";
    if (strategy == "passthrough")
        return "callers' own tokens";
    return "callers' tokens and gate's client secret, posted to its token endpoint";
}

bool uses_secret(std::string_view strategy) {
    return strategy == "static" || strategy == "client-credentials" || strategy == "token-exchange";
}

void check_hosts(const discovery& d, const upstream& u, const std::string& at,
                 std::vector<error>& out) {
    const auto& strategy = u.auth.strategy;
    auto check = [&](const std::string& url, const std::string& pointer, std::string_view what) {
        auto host = host_of(url);
        if (!listed(d.allowed_credential_hosts, host))
            out.push_back({pointer, "would send " + std::string(what) + " (auth strategy " +
                                        quoted(strategy) + ") to " + host +
                                        ", which discovery.allowedCredentialHosts does not list"});
    };
    for (std::size_t i = 0; i < u.urls.size(); ++i)
        check(u.urls[i], at + (u.single_url ? "/url" : "/urls/" + std::to_string(i)),
              "credentials");
    if (!u.auth.token_endpoint.empty())
        check(u.auth.token_endpoint, at + "/auth/tokenEndpoint",
              strategy == "token-exchange" ? "gate's client secret and callers' tokens"
                                           : "gate's client secret");
}

} // namespace

std::vector<error> containment_errors(const discovery& d, const upstream& u,
                                      const std::string& at) {
    std::vector<error> out;
    // A registry's entry must not make gate hammer a host with handshakes.
    if (u.health_check_interval_ms && *u.health_check_interval_ms < min_discovered_probe_ms)
        out.push_back({at + "/healthCheck/intervalMs",
                       "asks for a health probe every " +
                           std::to_string(*u.health_check_interval_ms) +
                           " ms; a discovered upstream is probed at most once a second"});
    const auto& a = u.auth;
    if (a.strategy == "none")
        return out;
    if (!listed(d.allowed_strategies, a.strategy))
        out.push_back({at + "/auth/strategy",
                       "uses the auth strategy " + quoted(a.strategy) + ", which would hand it " +
                           std::string(carries(a.strategy)) +
                           "; discovery.allowedStrategies does not list it (a discovered "
                           "upstream may use \"none\" and only the strategies listed there)"});
    auto check_secret = [&](const std::string& ref, std::string_view field) {
        if (!listed(d.allowed_secret_refs, ref))
            out.push_back({at + "/auth/" + std::string(field),
                           "names the secret " + ref +
                               ", which discovery.allowedSecretRefs does not list (a discovered "
                               "upstream may name only the environment variables listed there)"});
    };
    if (a.strategy == "static")
        check_secret(a.secret_ref, "secretRef");
    if (a.client_auth_)
        check_secret(a.client_auth_->secret_ref, "clientAuth/secretRef");
    check_hosts(d, u, at, out);
    return out;
}

std::vector<std::string> containment_summary(const discovery& d) {
    const std::string lead = "discovery: a discovered upstream may ";
    if (d.allowed_strategies.empty() && d.allowed_secret_refs.empty() &&
        d.allowed_credential_hosts.empty())
        return {lead + "use no secret, no credential host and no caller's token: auth strategy "
                       "\"none\" only",
                "discovery: to allow more, name each strategy, secret and host in "
                "discovery.allowedStrategies, discovery.allowedSecretRefs and "
                "discovery.allowedCredentialHosts (docs/configuration.md, Discovery); an entry "
                "that asks for anything not named there is left out, and the rest of the "
                "document applies"};
    std::vector<std::string> credentialed; // the listed strategies but "none", once each
    for (const auto& s : d.allowed_strategies)
        if (s != "none" && !listed(credentialed, s))
            credentialed.push_back(s);
    std::vector<std::string> out{
        lead + "use the auth strategies \"none\"" +
            (credentialed.empty() ? "" : ", " + joined(credentialed, true)) +
            " (discovery.allowedStrategies)",
        lead + (d.allowed_secret_refs.empty()
                    ? "name no secret (discovery.allowedSecretRefs lists none)"
                    : "name the secrets " + joined(d.allowed_secret_refs, false) +
                          " (discovery.allowedSecretRefs)"),
        lead + (d.allowed_credential_hosts.empty()
                    ? "send credentials to no host (discovery.allowedCredentialHosts lists none)"
                    : "send credentials to the credential hosts " +
                          joined(d.allowed_credential_hosts, false) +
                          " (discovery.allowedCredentialHosts)")};
    // A list that another list keeps from taking effect is almost always an oversight.
    const std::string note = "discovery: note: ";
    if (!credentialed.empty() && d.allowed_credential_hosts.empty())
        out.push_back(note + "no discovered upstream can use " + joined(credentialed, true) +
                      " until discovery.allowedCredentialHosts names a host to send credentials "
                      "to");
    for (const auto& s : credentialed)
        if (uses_secret(s) && d.allowed_secret_refs.empty())
            out.push_back(note + quoted(s) +
                          " needs a secret, and discovery.allowedSecretRefs names none");
    if (!d.allowed_secret_refs.empty() &&
        std::none_of(credentialed.begin(), credentialed.end(),
                     [](const std::string& s) { return uses_secret(s); }))
        out.push_back(note + "discovery.allowedSecretRefs names secrets, but "
                             "discovery.allowedStrategies lists no strategy that uses one "
                             "(\"static\", \"client-credentials\", \"token-exchange\")");
    if (credentialed.empty() && !d.allowed_credential_hosts.empty())
        out.push_back(note + "discovery.allowedCredentialHosts names hosts, but "
                             "discovery.allowedStrategies lists no strategy that sends "
                             "credentials");
    return out;
}

} // namespace gate::config
