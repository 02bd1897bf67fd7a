// Internals shared by the gateway's translation units (listener, MCP endpoint, stages).
#pragma once

#include "protocol/list_kind.hpp"
#include "transport/gateway.hpp"
#include "transport/http_reply.hpp"

#include <atomic>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace gate::transport {

using http_request = boost::beast::http::request<boost::beast::http::string_body>;

struct gateway::impl {
    impl(boost::asio::io_context& io, gateway_parts parts);

    boost::asio::awaitable<void> accept_loop();
    boost::asio::awaitable<void> sweep_sessions();
    // Opens every upstream's root session in the background and logs the outcome.
    void warm_up(const federation_view& view);
    boost::asio::awaitable<void> serve(boost::asio::ip::tcp::socket socket);
    // After refusing a request whose body was not read: half-close and discard, bounded.
    boost::asio::awaitable<void> drain(boost::beast::tcp_stream& stream);

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
    std::optional<boost::asio::ip::tcp::acceptor> acceptor;
    std::function<void(const request_record&)>* on_request = nullptr;
    std::atomic<bool> stopping{false};
    // Requests between header read and answer written (io thread).
    std::shared_ptr<std::size_t> in_flight = std::make_shared<std::size_t>(0);
};

} // namespace gate::transport
