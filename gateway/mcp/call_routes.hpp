// Stage 4 for a named call: its upstream and params from the snapshot (a tool's or a prompt's
// name), or from the resource router for a URI, whose owner the router learns from the
// resource lists (fetched once when it does not know it yet).
#pragma once

#include "actors/federation/router_messages.hpp"
#include "gateway/mcp/client_profiles.hpp"
#include "gateway/mcp/list_methods.hpp"
#include "gateway/pipeline/s4_route.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gate::gateway {

// What routing asks of the routers beyond the snapshot (router_line; a fake in
// tests/unit/call_routes_test.cpp).
class route_resolver {
public:
    // The resource router's route of a call by URI on the request's snapshot; nullopt when the
    // router did not answer.
    virtual boost::asio::awaitable<std::optional<actors::routed>>
    resolve(request_context& ctx, const std::string& method, const boost::json::object& params) = 0;

protected:
    ~route_resolver() = default;
};

// Stage 4's services (pipeline::route_services): the route stage holds this, the component
// that routes.
class call_routes final : public pipeline::route_services {
public:
    call_routes(route_resolver& resolver, client_profiles& profiles, list_methods& lists)
        : resolver_(resolver), profiles_(profiles), lists_(lists) {}

    // A call routed by its name alone, decided at once (params moved into the route);
    // nullopt, params untouched, for one the resource router must resolve.
    std::optional<pipeline::routing> route_by_name(const std::string& method,
                                                   const boost::json::value& id,
                                                   boost::json::object& params,
                                                   request_context& rec) override;
    // Any named call, a URI's included.
    boost::asio::awaitable<pipeline::routing> route_named(const std::string& method,
                                                          const boost::json::value& id,
                                                          boost::json::object params,
                                                          request_context& rec) override;
    // Which upstreams' cached lists of `kind` are stale (the list methods' plan).
    boost::asio::awaitable<std::optional<actors::list_plan>>
    plan_list(protocol::list_kind kind, request_context& rec) override {
        return lists_.plan(kind, rec);
    }

private:
    // The resource lists (and templates) fetched as gate's own, for the router to learn who
    // owns which URI.
    boost::asio::awaitable<void> learn_resources(request_context& rec);
    // The tools (or, for prompts/get and completion, prompts) lists fetched as gate's own, for
    // the router to reverse a short alias.
    boost::asio::awaitable<void> learn_names(const std::string& method, request_context& rec);
    // A tools/call by a name no namespace owns, as an MCP App's view calls its own server's
    // tool: the namespaced names of the caller's tools list (what it may see and call) whose
    // upstream name it is.
    boost::asio::awaitable<std::vector<std::string>> bare_name_candidates(const std::string& bare,
                                                                          request_context& rec);
    // A route, unless it is a tools/call of a tool gate left out of its lists (withheld under
    // a `block` pin, or an invalid x-mcp-header definition), or of one only an App's view may
    // call by a client that runs no views, by a caller the policy lets call it: then its
    // refusal. The policy is asked only of such a tool; any other is stage 5's to decide.
    pipeline::routing for_this_client(const std::string& method, const boost::json::value& id,
                                      pipeline::routing routed, request_context& rec);

    route_resolver& resolver_;
    client_profiles& profiles_;
    list_methods& lists_;
};

} // namespace gate::gateway
