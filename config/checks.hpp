// Value checks shared by every section: URLs, hosts, identifiers, environment variable names.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gate::config::detail {

// An absolute URL split into the parts validation looks at. `host` is lowercased and keeps
// IPv6 literals unbracketed; `path` includes its leading slash (or is empty).
struct url_parts {
    std::string scheme;
    std::string host;
    std::optional<int> port;
    std::string path;
    std::string query; // without '?'; empty when absent
    std::string fragment;
    bool has_userinfo = false;
    bool has_query = false;
    bool has_fragment = false;
};

// nullopt with `why` set when `text` is not an absolute URL with an authority.
std::optional<url_parts> parse_url(std::string_view text, std::string& why);

bool is_loopback_host(std::string_view host);
bool is_ipv4(std::string_view s);
bool is_ipv6(std::string_view s);
bool is_dns_name(std::string_view s);

// Why `text` is not an http(s) URL, or "" when it is. `secure` additionally demands https
// unless the host is loopback (spec: issuer, key-set and token URLs).
std::string http_url_problem(std::string_view text, bool secure);

// `[A-Za-z_][A-Za-z0-9_]*`: secrets are referenced by environment variable name only.
bool is_env_name(std::string_view s);
// Lowercase alphanumerics and hyphens, starting with a letter or digit.
bool is_slug(std::string_view s);
// RFC 9110 token, the grammar of a header field name.
bool is_http_token(std::string_view s);
// A header (any case) a credential may not be written into: those that frame or route a
// request (Host, Content-Length, Transfer-Encoding, ...) and those gate writes itself on every
// request to an upstream (Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version,
// Mcp-Method, Mcp-Name, traceparent), which a second copy would contradict.
bool is_reserved_request_header(std::string_view name);
// The same list, for a message: "Host, Content-Length, ...".
std::string_view reserved_request_headers_text();

} // namespace gate::config::detail
