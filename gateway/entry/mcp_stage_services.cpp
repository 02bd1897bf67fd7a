// Each operation hands the stage the gateway's own coroutine: the forwarding makes no frame.
#include "gateway/entry/mcp_stage_services.hpp"

#include "gateway/entry/gateway_impl.hpp"
#include "gateway/mcp/initialize.hpp"

namespace gate::transport {

namespace asio = boost::asio;
namespace json = boost::json;

std::optional<pipeline::routing> mcp_stage_services::route_by_name(const std::string& method,
                                                                   const json::value& id,
                                                                   json::object& params,
                                                                   request_context& ctx) {
    return g_.routes.by_name(method, id, params, ctx);
}

asio::awaitable<pipeline::routing> mcp_stage_services::route_named(const std::string& method,
                                                                   const json::value& id,
                                                                   json::object params,
                                                                   request_context& ctx) {
    return g_.routes.named(method, id, std::move(params), ctx);
}

asio::awaitable<std::optional<list_plan>> mcp_stage_services::plan_list(protocol::list_kind kind,
                                                                        request_context& ctx) {
    return g_.lists.plan(kind, ctx);
}

asio::awaitable<upstream_reply> mcp_stage_services::call(std::size_t upstream,
                                                         std::string_view method,
                                                         json::object params, request_context& ctx,
                                                         ticket admitted) {
    return g_.calls.call(upstream, method, std::move(params), ctx, true, std::move(admitted));
}

asio::awaitable<std::vector<fetched_list>>
mcp_stage_services::fetch_lists(protocol::list_kind kind, const list_plan& plan,
                                std::vector<ticket> tickets, request_context& ctx) {
    return g_.lists.fetch(kind, plan, std::move(tickets), ctx);
}

asio::awaitable<json::object> mcp_stage_services::initialize(const json::value& id,
                                                             const json::object& params,
                                                             std::string& version,
                                                             request_context& ctx) {
    return initialize_answer(g_.calls, id, params, version, ctx);
}

asio::awaitable<json::object> mcp_stage_services::set_log_level(const std::string& session,
                                                                const json::value& id,
                                                                const json::object& params,
                                                                request_context& ctx) {
    return g_.from_clients.set_log_level(session, id, params, ctx);
}

asio::awaitable<json::object> mcp_stage_services::task_call(const json::value& id,
                                                            const std::string& method,
                                                            json::object params,
                                                            request_context& ctx) {
    return g_.tasks.call(id, method, std::move(params), ctx);
}

asio::awaitable<json::object>
mcp_stage_services::subscribe_at_modern_upstream(const std::string& method, const json::value& id,
                                                 const route& target, request_context& ctx) {
    return g_.listening.subscribe_at_modern_upstream(method, id, target, ctx);
}

asio::awaitable<json::object>
mcp_stage_services::complete_list(protocol::list_kind kind, const list_plan& plan,
                                  std::vector<fetched_list> fetched, const json::value& id,
                                  const json::object& params, request_context& ctx) {
    return g_.lists.complete(kind, plan, std::move(fetched), id, params, ctx);
}

asio::awaitable<void> mcp_stage_services::pin_task(const request_context& ctx, std::size_t upstream,
                                                   std::string task_id) {
    return g_.tasks.pin_minted(ctx, upstream, std::move(task_id));
}

void mcp_stage_services::rewrite_icons(const request_context& ctx, std::size_t upstream,
                                       json::array& items) {
    g_.icons.rewrite_list(*ctx.view->snap, upstream, ctx.method, items);
}

void mcp_stage_services::record_subscription(const request_context& ctx, const std::string& uri,
                                             bool subscribed) {
    g_.listening.record(ctx, uri, subscribed);
}

std::optional<std::string> mcp_stage_services::open_session(request_context& ctx,
                                                            const json::object& capabilities) {
    return g_.session_opening.open(ctx, capabilities);
}

asio::awaitable<void> mcp_stage_services::publish_session(const std::string& id,
                                                          const std::string& protocol_version,
                                                          const json::object& capabilities,
                                                          const std::string& owner) {
    return g_.in_fleet.publish_session(id, protocol_version, capabilities, owner);
}

} // namespace gate::transport
