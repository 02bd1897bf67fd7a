// Every HTTP endpoint gate serves, in the order they are tried (http_routes.hpp says how a row
// is read): the MCP endpoint's three methods and the introspection views enter the chain by
// their door; the token endpoint, the resource metadata, the sign-in hint, the console, health,
// metrics, icons and the test-only fault hooks do not (docs/operations.md, Endpoints). The
// gateway's answer to each endpoint is its handler (gateway/entry/gateway.cpp, handler_of).
#pragma once

#include "gateway/entry/fault_hooks.hpp"
#include "gateway/entry/http_routes.hpp"
#include "protocol/icons.hpp"

#include <array>
#include <cstdint>

namespace gate::gateway {

enum class endpoint : std::uint8_t {
    mcp_message,
    mcp_stream,
    mcp_close,
    federation_view,
    explain_view,
    traffic_view,
    catalog_view,
    token_redemption,
    token_keys,
    token_issuer_metadata,
    resource_metadata,
    auth_hint,
    console_root,
    console_asset,
    health,
    metrics,
    icon,
    account_connect,
    account_callback,
    account_client_metadata,
    account_connections,
    account_disconnect,
    account_listing,
    account_revocation,
    fault_hook,
};

using gate_route = http_route<endpoint>;

// One row a line, read as the table it is.
// clang-format off
inline constexpr std::array<gate_route, 26> gate_routes = [] {
    using enum route_path;
    using enum route_switch;
    using enum other_methods;
    using pipeline::door;
    return std::array<gate_route, 26>{{
    // path                                            methods             other methods       on when        door           endpoint
    {mcp_endpoint, "",                                 post_only_method,   method_not_allowed, always,        door::message, endpoint::mcp_message},
    {mcp_endpoint, "",                                 get_only_method,    method_not_allowed, always,        door::stream,  endpoint::mcp_stream},
    {mcp_endpoint, "",                                 delete_only_method, method_not_allowed, always,        door::close,   endpoint::mcp_close},
    {exact, "/api/federation",                         get_only_method,    get_only,           introspection, door::view,    endpoint::federation_view},
    {exact, "/api/explain",                            get_only_method,    get_only,           introspection, door::view,    endpoint::explain_view},
    {exact, "/api/traffic",                            get_only_method,    get_only,           introspection, door::view,    endpoint::traffic_view},
    {exact, "/api/catalog",                            get_only_method,    get_only,           introspection, door::view,    endpoint::catalog_view},
    // Unauthenticated by design: the assertion is the credential (spec: Endpoints).
    {exact, "/oauth/token",                            post_only_method,   pass,               own_tokens,    {},            endpoint::token_redemption},
    {exact, "/.well-known/jwks.json",                  get_only_method,    pass,               own_tokens,    {},            endpoint::token_keys},
    {exact, "/.well-known/oauth-authorization-server", get_only_method,    pass,               own_tokens,    {},            endpoint::token_issuer_metadata},
    {exact, resource_metadata_path,                    get_only_method,    pass,               inbound_auth,  {},            endpoint::resource_metadata},
    {route_path::resource_metadata, "",                get_only_method,    pass,               inbound_auth,  {},            endpoint::resource_metadata},
    {exact, "/api/auth-hint",                          get_only_method,    get_only,           introspection, {},            endpoint::auth_hint},
    {exact, "/console",                                get_only_method,    get_only,           console,       {},            endpoint::console_root},
    {prefix, "/console",                               get_only_method,    get_only,           console,       {},            endpoint::console_asset},
    {exact, "/health",                                 get_only_method,    pass,               always,        {},            endpoint::health},
    {exact, "/metrics",                                get_only_method,    pass,               always,        {},            endpoint::metrics},
    // Open like the console's assets: a client fetches icons without credentials (MCP's rule);
    // the endpoint answers each method.
    {prefix, protocol::icon_path_prefix,               every_method,       pass,               always,        {},            endpoint::icon},
    // A user's browser, not an MCP client: the login id, state and cookie are the credential
    // (gateway/accounts/user_accounts.hpp).
    {exact, "/oauth/connect",                          get_or_post_method, method_not_allowed, user_accounts, {},            endpoint::account_connect},
    {exact, "/oauth/callback",                         get_only_method,    get_only,           user_accounts, {},            endpoint::account_callback},
    {exact, "/oauth/client-metadata.json",             get_only_method,    get_only,           user_accounts, {},            endpoint::account_client_metadata},
    // The caller's own connections, after stages 2 and 3 like the views.
    {exact, "/api/connections",                        get_only_method,    get_only,           user_accounts, door::view,    endpoint::account_connections},
    {prefix, "/api/connections/",                      delete_only_method, method_not_allowed, user_accounts, door::view,    endpoint::account_disconnect},
    // Every principal's connections, the operator's (server.vault.operatorScope).
    {exact, "/api/accounts",                           get_only_method,    method_not_allowed, user_accounts, door::view,    endpoint::account_listing},
    {exact, "/api/accounts",                           delete_only_method, method_not_allowed, user_accounts, door::view,    endpoint::account_revocation},
    {prefix, fault_hook_prefix,                        every_method,       pass,               fault_hooks,   {},            endpoint::fault_hook},
    }};
}();
// clang-format on

} // namespace gate::gateway
