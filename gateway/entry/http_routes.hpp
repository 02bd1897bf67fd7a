// gate's HTTP endpoints as one table (the rows are in gateway/entry/gateway.cpp): a path, exact
// or a prefix (the MCP endpoint's is the running document's, and so is the resource metadata
// path built on it), the methods a row answers, whether it is on now, the door of the chain a
// request enters by (the MCP endpoint's methods and the introspection views), and its handler.
// Rows are tried in order and the first that answers the path and the method runs. Another
// method on a path a row owns is refused 405 with what Allow lists, where the row says so (the
// MCP endpoint and the GET-only views); a path no row answers is 404. Plain C++: find_route
// decides, tests/unit/http_routes_test.cpp pins every row's decision.
#pragma once

#include "gateway/pipeline/entry.hpp"

#include <boost/beast/http/verb.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gate::gateway {

enum class route_path : std::uint8_t {
    exact,
    prefix,
    mcp_endpoint,      // server.mcpPath of the running document
    resource_metadata, // /.well-known/oauth-protected-resource followed by the MCP path
};

// When a row is on: always, or while a section of the running document (or of the program)
// turns its endpoint on.
enum class route_switch : std::uint8_t {
    always,
    introspection, // server.introspection
    console,       // server.console
    own_tokens,    // auth.ema: gate mints its own tokens (its token endpoint)
    inbound_auth,  // auth.mode "required"
    fault_hooks,   // GATE_TEST_FAULT_HOOKS (tests only)
    user_accounts, // an upstream takes each user's own account (strategy user-account)
};

// What another method gets on a row's path: nothing from this row (a later row may answer, else
// 404), or 405 with Allow, worded as the MCP endpoint's or as a GET-only endpoint's refusal.
enum class other_methods : std::uint8_t { pass, method_not_allowed, get_only };

// The methods a row answers (`any`: every one; its handler tells them apart).
struct route_methods {
    bool get = false, post = false, delete_ = false, any = false;
    bool has(boost::beast::http::verb v) const {
        using boost::beast::http::verb;
        return any || (get && v == verb::get) || (post && v == verb::post) ||
               (delete_ && v == verb::delete_);
    }
};

inline constexpr route_methods get_only_method{.get = true};
inline constexpr route_methods post_only_method{.post = true};
inline constexpr route_methods delete_only_method{.delete_ = true};
inline constexpr route_methods get_or_post_method{.get = true, .post = true};
inline constexpr route_methods every_method{.any = true};

template <class Handler> struct http_route {
    route_path kind;
    std::string_view path; // exact and prefix rows: the literal
    route_methods methods;
    other_methods others;
    route_switch when;
    std::optional<pipeline::door> door; // the chain's door it enters by, if any
    Handler handler;
};

struct route_switches {
    bool introspection = false, console = false, own_tokens = false, inbound_auth = false,
         fault_hooks = false, user_accounts = false;
    bool on(route_switch s) const {
        switch (s) {
        case route_switch::always:
            return true;
        case route_switch::introspection:
            return introspection;
        case route_switch::console:
            return console;
        case route_switch::own_tokens:
            return own_tokens;
        case route_switch::inbound_auth:
            return inbound_auth;
        case route_switch::fault_hooks:
            return fault_hooks;
        case route_switch::user_accounts:
            return user_accounts;
        }
        return false;
    }
};

inline constexpr std::string_view resource_metadata_path = "/.well-known/oauth-protected-resource";

// Whether `row` owns `path` (`mcp_path`: the running document's MCP endpoint).
template <class Handler>
bool owns(const http_route<Handler>& row, std::string_view path, std::string_view mcp_path) {
    switch (row.kind) {
    case route_path::exact:
        return path == row.path;
    case route_path::prefix:
        return path.starts_with(row.path);
    case route_path::mcp_endpoint:
        return path == mcp_path;
    case route_path::resource_metadata:
        return path.size() == resource_metadata_path.size() + mcp_path.size() &&
               path.starts_with(resource_metadata_path) && path.ends_with(mcp_path);
    }
    return false;
}

template <class Handler> struct route_decision {
    const http_route<Handler>* row = nullptr; // the row to run; null: refused or not found
    std::optional<other_methods> refused;     // 405, worded so ...
    std::string allow;                        // ... listing these methods
};

template <class Handler>
route_decision<Handler> find_route(std::span<const http_route<Handler>> rows, std::string_view path,
                                   boost::beast::http::verb method, std::string_view mcp_path,
                                   const route_switches& on) {
    route_decision<Handler> d;
    route_methods allowed;
    for (const auto& row : rows) {
        if (!on.on(row.when) || !owns(row, path, mcp_path))
            continue;
        if (row.methods.has(method))
            return {&row, std::nullopt, {}}; // what earlier rows refused does not count
        if (row.others == other_methods::pass)
            continue;
        d.refused = row.others;
        allowed.get |= row.methods.get;
        allowed.post |= row.methods.post;
        allowed.delete_ |= row.methods.delete_;
    }
    if (d.refused)
        for (auto [listed, name] : {std::pair{allowed.get, "GET"}, std::pair{allowed.post, "POST"},
                                    std::pair{allowed.delete_, "DELETE"}})
            if (listed)
                d.allow += (d.allow.empty() ? "" : ", ") + std::string(name);
    return d;
}

} // namespace gate::gateway
