// Stage 4, route (s4_route.cpp), and what it asks of the gateway: a named call's upstream
// (decided from the snapshot, or by the resource router for a URI) and a list's plan.
#pragma once

#include "actors/federation/router_messages.hpp"
#include "gateway/pipeline/stage.hpp"
#include "protocol/list_kind.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <memory>
#include <optional>
#include <string>
#include <variant>

namespace gate::gateway::pipeline {

// A route, or the JSON-RPC refusal under the client's id (its outcome and error on the
// request).
using routing = std::variant<actors::route, boost::json::object>;

class route_services {
public:
    // A call routed by its name alone, decided at once (params moved into the route);
    // nullopt, params untouched, for one the resource router must resolve.
    virtual std::optional<routing> route_by_name(const std::string& method,
                                                 const boost::json::value& id,
                                                 boost::json::object& params,
                                                 request_context& ctx) = 0;
    // Any named call, a URI's included: its owner asked of the resource router where the
    // snapshot cannot tell.
    virtual boost::asio::awaitable<routing> route_named(const std::string& method,
                                                        const boost::json::value& id,
                                                        boost::json::object params,
                                                        request_context& ctx) = 0;
    // Which upstreams' cached lists of `kind` are stale; nullopt when the router did not
    // answer.
    virtual boost::asio::awaitable<std::optional<actors::list_plan>>
    plan_list(protocol::list_kind kind, request_context& ctx) = 0;

protected:
    ~route_services() = default;
};

std::unique_ptr<stage> make_route(route_services& services);

} // namespace gate::gateway::pipeline
