// A minimal MCP server over streamable HTTP: sessions, one `echo` tool, JSON answers. Used by
// the benchmark's fast upstream and by in-process gateway tests.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace gate::test_support {

// Accepts connections on `acceptor` forever, serving each on its own coroutine.
boost::asio::awaitable<void> serve_mini_mcp(boost::asio::ip::tcp::acceptor& acceptor);

} // namespace gate::test_support
