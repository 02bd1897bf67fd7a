// What gate reads to become an OAuth client of an upstream's authorization server, as plain
// C++ on outside input: where the metadata lives (RFC 9728 section 3.1 for the protected
// resource, RFC 8414 section 3.1 and OpenID Discovery for its server), the two documents read
// and checked (the resource names the upstream, the server names the issuer it was fetched
// for, PKCE S256 is offered), a Bearer challenge's parameters (RFC 6750, RFC 9728 section 5.1)
// and the authorization request's URL (RFC 6749 section 4.1.1, RFC 7636, RFC 8707).
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::protocol::oauth {

struct resource_metadata {
    std::string resource;
    std::vector<std::string> authorization_servers;
    std::vector<std::string> scopes_supported;
};

struct server_metadata {
    std::string issuer;
    std::string authorization_endpoint;
    std::string token_endpoint;
    std::string registration_endpoint;    // empty: no dynamic registration (RFC 7591)
    std::string revocation_endpoint;      // empty: no token revocation (RFC 7009)
    bool iss_parameter_supported = false; // RFC 9207
    bool client_id_metadata_document_supported = false;
};

// Where the resource's metadata is looked for, in order: the path-aware URL, then the root.
std::vector<std::string> resource_metadata_urls(std::string_view resource_url);
// Where an issuer's metadata is looked for, in order (RFC 8414, then OpenID Discovery both
// ways).
std::vector<std::string> server_metadata_urls(std::string_view issuer);

// The document, or why it cannot be used; `resource_url` is the upstream's URL, which the
// metadata's `resource` must name (it or a path prefix of it, on the same origin).
std::variant<resource_metadata, std::string> read_resource_metadata(std::string_view body,
                                                                    std::string_view resource_url);
// The document, or why it cannot be used: its issuer must be the one asked for, its
// endpoints absolute http(s) URLs, and S256 among its PKCE methods.
std::variant<server_metadata, std::string> read_server_metadata(std::string_view body,
                                                                std::string_view issuer);

// A Bearer challenge's parameters (empty when absent).
struct bearer_challenge {
    std::string resource_metadata;
    std::string scope;
    std::string error;
};
bearer_challenge read_bearer_challenge(std::string_view www_authenticate);

// Whether `url` is an absolute http or https URL without a fragment.
bool is_http_url(std::string_view url);

struct authorization_request {
    std::string client_id;
    std::string redirect_uri;
    std::string scope; // empty: not sent
    std::string state;
    std::string code_challenge;
    std::string resource; // empty: not sent
};
// The authorization endpoint's URL with the request's parameters added to its own query.
std::string authorization_url(std::string_view endpoint, const authorization_request& r);

} // namespace gate::protocol::oauth
