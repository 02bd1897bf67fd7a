// A minimal, fast MCP server over streamable HTTP for benchmarks (tests/support/
// mini_mcp_server): it exists so the gateway's own cost is visible next to a direct call
// (docs/benchmarks.md). Prints "listening <port>" on stdout.
#include "tests/support/mini_mcp_server.hpp"

#include <boost/asio.hpp>
#include <cstdio>
#include <string>

int main(int argc, char** argv) {
    namespace asio = boost::asio;
    unsigned short port = argc > 1 ? static_cast<unsigned short>(std::stoi(argv[1])) : 0;
    asio::io_context io(1);
    asio::ip::tcp::acceptor acc(io, {asio::ip::make_address("127.0.0.1"), port});
    std::printf("listening %u\n", acc.local_endpoint().port());
    std::fflush(stdout);
    asio::co_spawn(io, gate::test_support::serve_mini_mcp(acc), asio::detached);
    io.run();
}
