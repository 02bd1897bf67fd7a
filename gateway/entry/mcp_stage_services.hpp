// What the stages that carry a call (route, proxy, egress) ask of the gateway, answered by its
// MCP methods (gateway/mcp/): each stage sees only its own interface (gateway/pipeline/
// s4_route.hpp, s7_proxy.hpp, s8_egress.hpp), never gateway::impl. One forwarding call per
// operation.
#pragma once

#include "gateway/entry/gateway.hpp"
#include "gateway/pipeline/s4_route.hpp"
#include "gateway/pipeline/s7_proxy.hpp"
#include "gateway/pipeline/s8_egress.hpp"

namespace gate::transport {

class mcp_stage_services final : public pipeline::route_services,
                                 public pipeline::proxy_services,
                                 public pipeline::egress_services {
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

    // Stage 7.
    boost::asio::awaitable<upstream_reply> call(std::size_t upstream, std::string_view method,
                                                boost::json::object params, request_context& ctx,
                                                ticket admitted) override;
    boost::asio::awaitable<std::vector<fetched_list>> fetch_lists(protocol::list_kind kind,
                                                                  const list_plan& plan,
                                                                  std::vector<ticket> tickets,
                                                                  request_context& ctx) override;
    boost::asio::awaitable<boost::json::object> initialize(const boost::json::value& id,
                                                           const boost::json::object& params,
                                                           std::string& version,
                                                           request_context& ctx) override;
    boost::asio::awaitable<boost::json::object> set_log_level(const std::string& session,
                                                              const boost::json::value& id,
                                                              const boost::json::object& params,
                                                              request_context& ctx) override;
    boost::asio::awaitable<boost::json::object> task_call(const boost::json::value& id,
                                                          const std::string& method,
                                                          boost::json::object params,
                                                          request_context& ctx) override;
    boost::asio::awaitable<boost::json::object>
    subscribe_at_modern_upstream(const std::string& method, const boost::json::value& id,
                                 const route& target, request_context& ctx) override;

    // Stage 8.
    boost::asio::awaitable<boost::json::object>
    complete_list(protocol::list_kind kind, const list_plan& plan,
                  std::vector<fetched_list> fetched, const boost::json::value& id,
                  const boost::json::object& params, request_context& ctx) override;
    boost::asio::awaitable<void> pin_task(const request_context& ctx, std::size_t upstream,
                                          std::string task_id) override;
    void rewrite_icons(const request_context& ctx, std::size_t upstream,
                       boost::json::array& items) override;
    void record_subscription(const request_context& ctx, const std::string& uri,
                             bool subscribed) override;
    std::optional<std::string> open_session(request_context& ctx,
                                            const boost::json::object& capabilities) override;
    boost::asio::awaitable<void> publish_session(const std::string& id,
                                                 const std::string& protocol_version,
                                                 const boost::json::object& capabilities,
                                                 const std::string& owner) override;

private:
    gateway::impl& g_;
};

} // namespace gate::transport
