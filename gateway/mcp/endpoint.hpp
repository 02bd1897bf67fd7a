// The MCP endpoint's POST (server.mcpPath): a session's message (2025-11-25, 2025-06-18) from
// where the chain's entry left it, or a 2026-07-28 client's stateless request (server/discover,
// a listen, a list, a call, a parked call's retry). GET and DELETE are the session streams'.
#pragma once

#include "gateway/mcp/call_streams.hpp"
#include "gateway/mcp/client_traffic.hpp"
#include "gateway/mcp/listen_methods.hpp"
#include "gateway/mcp/upstream_calls.hpp"
#include "gateway/pipeline/chain.hpp"
#include "gateway/pipeline/entry.hpp"
#include "transport/http/http_reply.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <optional>

namespace gate::gateway {

class mcp_endpoint {
public:
    mcp_endpoint(pipeline::chain& stages, client_traffic& from_clients, call_streams& call_paths,
                 upstream_calls& calls, listen_methods& listens)
        : stages_(stages), from_clients_(from_clients), call_paths_(call_paths), calls_(calls),
          listens_(listens) {}

    // A POST's message, from where the chain's entry left it (read, limited, traced, its
    // session checked: chain::enter). Not a coroutine: a named call's own is handed back as it
    // is, with no frame of this function's around it.
    boost::asio::awaitable<std::optional<transport::http_reply>>
    post(boost::beast::tcp_stream& stream, request_context& rec, pipeline::arrival& a);

private:
    // Every other message: notifications and answers to the upstreams, initialize, lists,
    // ping and logging/setLevel.
    boost::asio::awaitable<std::optional<transport::http_reply>> post_other(request_context& rec,
                                                                            pipeline::arrival& a);
    boost::asio::awaitable<std::optional<transport::http_reply>>
    stateless(const transport::http_request& req, boost::beast::tcp_stream& stream,
              protocol::message msg, request_context& rec);
    // A 2026-07-28 server/discover: the federation described, no session made.
    boost::asio::awaitable<transport::http_reply> server_discover(const protocol::message& msg,
                                                                  request_context& rec);

    pipeline::chain& stages_;
    client_traffic& from_clients_;
    call_streams& call_paths_;
    upstream_calls& calls_;
    listen_methods& listens_;
};

} // namespace gate::gateway
