// Runs the server once and completes the MCP handshake (initialize, then
// notifications/initialized), then ends it: --probe, and /health when no session is live. A
// server that refuses initialize is asked server/discover (2026-07-28) on the same pipes, and
// is runnable when it answers with the versions it supports.
#pragma once

#include "shim/spawn.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <string>

namespace gate::shim {

struct probe_result {
    bool ok = false;
    std::string detail; // ok: "<serverInfo.name> <version> (protocol <v>)"; else the reason
};

boost::asio::awaitable<probe_result> probe_server(boost::asio::any_io_executor ex,
                                                  spawn_request request,
                                                  std::chrono::milliseconds timeout);

} // namespace gate::shim
