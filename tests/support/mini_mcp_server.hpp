// A minimal MCP server over streamable HTTP: sessions, one `echo` tool, JSON answers. Used by
// the benchmark's fast upstream and by in-process gateway tests.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <string>

namespace gate::test_support {

// Headers of interest of each request the server received (called on the io thread).
struct seen_request {
    std::string method; // JSON-RPC method
    std::string traceparent;
    std::string session_id;
};
using request_observer = std::function<void(const seen_request&)>;

// Accepts connections on `acceptor` forever, serving each on its own coroutine.
boost::asio::awaitable<void> serve_mini_mcp(boost::asio::ip::tcp::acceptor& acceptor,
                                            request_observer observe = {});

// Forgets every session, as a restarted server would: their next requests get 404.
void forget_sessions();

} // namespace gate::test_support
