// Each operation hands the stage the gateway's own coroutine: the forwarding makes no frame.
#include "gateway/entry/mcp_stage_services.hpp"

#include "gateway/entry/gateway_impl.hpp"

namespace gate::transport {

namespace asio = boost::asio;
namespace json = boost::json;

std::optional<pipeline::routing> mcp_stage_services::route_by_name(const std::string& method,
                                                                   const json::value& id,
                                                                   json::object& params,
                                                                   request_context& ctx) {
    return g_.route_by_name(method, id, params, ctx);
}

asio::awaitable<pipeline::routing> mcp_stage_services::route_named(const std::string& method,
                                                                   const json::value& id,
                                                                   json::object params,
                                                                   request_context& ctx) {
    return g_.route_named(method, id, std::move(params), ctx);
}

asio::awaitable<std::optional<list_plan>> mcp_stage_services::plan_list(protocol::list_kind kind,
                                                                        request_context& ctx) {
    return g_.plan_of(kind, ctx);
}

} // namespace gate::transport
