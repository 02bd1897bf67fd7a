#include "protocol/oauth/metadata.hpp"

#include <boost/json/parse.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <optional>

namespace gate::protocol::oauth {

namespace json = boost::json;

namespace {

// scheme://authority and the path (without a trailing slash), or nothing for a URL that is
// not absolute http(s).
struct split_url {
    std::string origin, path;
};

std::optional<split_url> split(std::string_view text) {
    auto u = boost::urls::parse_absolute_uri(boost::core::string_view(text.data(), text.size()));
    if (!u || u->has_fragment() || !u->has_authority() || u->host().empty())
        return std::nullopt;
    auto scheme = u->scheme();
    if (scheme != "http" && scheme != "https")
        return std::nullopt;
    split_url out;
    out.origin = std::string(scheme) + "://" + std::string(u->encoded_authority());
    out.path = std::string(u->encoded_path());
    while (!out.path.empty() && out.path.back() == '/')
        out.path.pop_back();
    return out;
}

std::string string_member(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::vector<std::string> strings_member(const json::object& o, std::string_view key) {
    std::vector<std::string> out;
    if (const auto* v = o.if_contains(key); v && v->is_array())
        for (const auto& e : v->get_array())
            if (e.is_string())
                out.emplace_back(e.get_string());
    return out;
}

bool bool_member(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_bool() && v->get_bool();
}

std::optional<json::value> parse_object(std::string_view body) {
    boost::system::error_code ec;
    auto doc = json::parse(body, ec);
    if (ec || !doc.is_object())
        return std::nullopt;
    return doc;
}

} // namespace

bool is_http_url(std::string_view url) {
    return split(url).has_value();
}

std::vector<std::string> resource_metadata_urls(std::string_view resource_url) {
    auto s = split(resource_url);
    if (!s)
        return {};
    std::vector<std::string> out;
    if (!s->path.empty())
        out.push_back(s->origin + "/.well-known/oauth-protected-resource" + s->path);
    out.push_back(s->origin + "/.well-known/oauth-protected-resource");
    return out;
}

std::vector<std::string> server_metadata_urls(std::string_view issuer) {
    auto s = split(issuer);
    if (!s)
        return {};
    if (s->path.empty())
        return {s->origin + "/.well-known/oauth-authorization-server",
                s->origin + "/.well-known/openid-configuration"};
    return {s->origin + "/.well-known/oauth-authorization-server" + s->path,
            s->origin + "/.well-known/openid-configuration" + s->path,
            s->origin + s->path + "/.well-known/openid-configuration"};
}

std::variant<resource_metadata, std::string> read_resource_metadata(std::string_view body,
                                                                    std::string_view resource_url) {
    auto doc = parse_object(body);
    if (!doc)
        return std::string("the protected resource metadata is not a JSON object");
    const auto& o = doc->get_object();
    resource_metadata m;
    m.resource = string_member(o, "resource");
    auto named = split(m.resource);
    auto asked = split(resource_url);
    // RFC 9728 section 3.3: the metadata must be about the resource it was fetched for; a
    // prefix on the same origin stands for the server's root.
    bool names_it = named && asked && named->origin == asked->origin &&
                    (asked->path == named->path || asked->path.starts_with(named->path + "/"));
    if (!names_it)
        return "the protected resource metadata names resource \"" + m.resource.substr(0, 200) +
               "\", not the upstream's URL";
    for (auto& as : strings_member(o, "authorization_servers"))
        if (is_http_url(as))
            m.authorization_servers.push_back(std::move(as));
    if (m.authorization_servers.empty())
        return std::string("the protected resource metadata names no authorization server");
    m.scopes_supported = strings_member(o, "scopes_supported");
    return m;
}

std::variant<server_metadata, std::string> read_server_metadata(std::string_view body,
                                                                std::string_view issuer) {
    auto doc = parse_object(body);
    if (!doc)
        return std::string("the authorization server metadata is not a JSON object");
    const auto& o = doc->get_object();
    server_metadata m;
    m.issuer = string_member(o, "issuer");
    if (m.issuer != issuer) // RFC 8414 section 3.3
        return "the authorization server metadata names issuer \"" + m.issuer.substr(0, 200) +
               "\", not the one it was fetched for";
    m.authorization_endpoint = string_member(o, "authorization_endpoint");
    m.token_endpoint = string_member(o, "token_endpoint");
    m.registration_endpoint = string_member(o, "registration_endpoint");
    if (!is_http_url(m.authorization_endpoint) || !is_http_url(m.token_endpoint))
        return std::string("the authorization server metadata lacks an http(s) "
                           "authorization_endpoint or token_endpoint");
    if (!m.registration_endpoint.empty() && !is_http_url(m.registration_endpoint))
        m.registration_endpoint.clear();
    m.revocation_endpoint = string_member(o, "revocation_endpoint");
    if (!m.revocation_endpoint.empty() && !is_http_url(m.revocation_endpoint))
        m.revocation_endpoint.clear(); // unusable: nothing is revoked there, as with none
    auto methods = strings_member(o, "code_challenge_methods_supported");
    if (std::find(methods.begin(), methods.end(), "S256") == methods.end())
        return std::string("the authorization server does not offer PKCE with S256 "
                           "(code_challenge_methods_supported)");
    m.iss_parameter_supported = bool_member(o, "authorization_response_iss_parameter_supported");
    m.client_id_metadata_document_supported =
        bool_member(o, "client_id_metadata_document_supported");
    return m;
}

bearer_challenge read_bearer_challenge(std::string_view h) {
    bearer_challenge out;
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    std::size_t i = 0;
    // Skip to after the "Bearer" scheme, then read name=value pairs (quoted or tokens).
    while (i < h.size() && h[i] == ' ')
        ++i;
    if (h.size() - i < 6)
        return out;
    for (std::size_t k = 0; k < 6; ++k)
        if (lower(h[i + k]) != "bearer"[k])
            return out;
    i += 6;
    while (i < h.size()) {
        while (i < h.size() && (h[i] == ' ' || h[i] == ','))
            ++i;
        auto name_start = i;
        while (i < h.size() && h[i] != '=' && h[i] != ' ' && h[i] != ',')
            ++i;
        std::string name;
        for (auto c : h.substr(name_start, i - name_start))
            name += lower(c);
        if (i >= h.size() || h[i] != '=')
            break; // another scheme's challenge follows, or a malformed one
        ++i;
        std::string value;
        if (i < h.size() && h[i] == '"') {
            ++i;
            while (i < h.size() && h[i] != '"') {
                if (h[i] == '\\' && i + 1 < h.size())
                    ++i;
                value += h[i++];
            }
            ++i;
        } else {
            while (i < h.size() && h[i] != ',' && h[i] != ' ')
                value += h[i++];
        }
        if (name == "resource_metadata")
            out.resource_metadata = std::move(value);
        else if (name == "scope")
            out.scope = std::move(value);
        else if (name == "error")
            out.error = std::move(value);
    }
    return out;
}

std::string authorization_url(std::string_view endpoint, const authorization_request& r) {
    boost::urls::url u(boost::core::string_view(endpoint.data(), endpoint.size()));
    auto p = u.params();
    auto add = [&](std::string_view k, std::string_view v) {
        p.append({boost::core::string_view(k.data(), k.size()),
                  boost::core::string_view(v.data(), v.size())});
    };
    add("response_type", "code");
    add("client_id", r.client_id);
    add("redirect_uri", r.redirect_uri);
    if (!r.scope.empty())
        add("scope", r.scope);
    add("state", r.state);
    add("code_challenge", r.code_challenge);
    add("code_challenge_method", "S256");
    if (!r.resource.empty())
        add("resource", r.resource);
    return std::string(u.buffer());
}

} // namespace gate::protocol::oauth
