// Internals shared by the gateway's translation units (listener, MCP endpoint, stages).
#pragma once

#include "protocol/list_kind.hpp"
#include "transport/gateway.hpp"
#include "transport/http_reply.hpp"
#include "transport/http_server.hpp"

#include <boost/beast/core/tcp_stream.hpp>

namespace gate::transport {

struct gateway::impl final : http_handler {
    impl(boost::asio::io_context& io, gateway_parts parts);

    // http_handler: stage 1 (Host/Origin) in admit, the endpoints in respond.
    std::optional<http_reply> admit(const http_request& req, time_point start) override;
    void body_too_large(std::size_t limit, time_point start) override;
    boost::asio::awaitable<std::optional<http_reply>>
    respond(http_request& req, boost::beast::tcp_stream& stream, time_point start) override;

    boost::asio::awaitable<void> sweep_sessions();
    // Opens every upstream's root session in the background and logs the outcome.
    void warm_up(const federation_view& view);

    // The MCP endpoint.
    boost::asio::awaitable<http_reply> mcp_post(const http_request& req, request_record& rec);
    boost::asio::awaitable<void> mcp_get(boost::beast::tcp_stream& stream, const http_request& req);
    http_reply mcp_delete(const http_request& req);

    // Stages 2-8 for one JSON-RPC request; the answer is the full JSON-RPC response.
    boost::asio::awaitable<boost::json::object>
    handle(const std::string& session, const boost::json::value& id, const std::string& method,
           boost::json::object params, request_record& rec);
    boost::asio::awaitable<boost::json::object> federated_list(protocol::list_kind kind,
                                                               const std::string& session,
                                                               const boost::json::value& id,
                                                               const boost::json::object& params,
                                                               request_record& rec);
    boost::asio::awaitable<boost::json::object> named_call(const std::string& method,
                                                           const boost::json::value& id,
                                                           boost::json::object params,
                                                           request_record& rec);
    boost::asio::awaitable<boost::json::object> initialize(const boost::json::value& id,
                                                           const boost::json::object& params,
                                                           std::string& version,
                                                           request_record& rec);
    // Proxy stage for one upstream call: metrics per upstream, failures as -32041.
    boost::asio::awaitable<upstream_reply> call_upstream(std::size_t upstream,
                                                         std::string_view method,
                                                         boost::json::object params,
                                                         request_record& rec);

    // Stage 9: exactly one audit event and one request metric per terminal response.
    void finish(request_record& rec);
    void reject_http(std::string_view reason, std::string_view outcome, std::string error,
                     std::chrono::steady_clock::time_point start);

    boost::asio::io_context& io;
    gateway_parts parts;
    const config::document& doc;
    host_guard guard;
    metrics stats;
    session_table sessions;
    std::shared_ptr<const federation_view> live;
    std::shared_ptr<health_checker> health;
    http_server server;
    std::function<void(const request_record&)>* on_request = nullptr;
};

} // namespace gate::transport
