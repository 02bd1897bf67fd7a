// What the stages that carry a call (route, proxy, egress) ask of the gateway, answered by its
// MCP methods (gateway/mcp/): each stage sees only its own interface (gateway/pipeline/
// s4_route.hpp), never gateway::impl. One forwarding call per operation.
#pragma once

#include "gateway/entry/gateway.hpp"
#include "gateway/pipeline/s4_route.hpp"

namespace gate::transport {

class mcp_stage_services final : public pipeline::route_services {
public:
    explicit mcp_stage_services(gateway::impl& g) : g_(g) {}

    // Stage 4.
    std::optional<pipeline::routing> route_by_name(const std::string& method,
                                                   const boost::json::value& id,
                                                   boost::json::object& params,
                                                   request_context& ctx) override;
    boost::asio::awaitable<pipeline::routing> route_named(const std::string& method,
                                                          const boost::json::value& id,
                                                          boost::json::object params,
                                                          request_context& ctx) override;
    boost::asio::awaitable<std::optional<list_plan>> plan_list(protocol::list_kind kind,
                                                               request_context& ctx) override;

private:
    gateway::impl& g_;
};

} // namespace gate::transport
