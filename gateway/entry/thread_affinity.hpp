// Which io thread answers a request (docs/io-threads.md): the one that keeps what the request
// names again. A session's messages, GET stream and DELETE go to the thread that opened it (its
// Mcp-Session-Id says which: protocol/shard_key), and a 2026-07-28 retry to the thread that
// parked its call (its requestState says which); /health, /metrics, the icons and users' account
// pages to the first thread, which keeps one report, one scrape, one cache of icons and the
// accounts as on one thread. Anything else is answered where it arrived. Plain C++ over the request
// as read; the HTTP server moves the connection.
#pragma once

#include "transport/http/http_server.hpp"

#include <cstddef>
#include <optional>
#include <string_view>

namespace gate::gateway {

// The owning thread among `threads` of a request on `mcp_path`, asked on its header
// (`body_read` false: the session) and again on its body (a parked call's requestState, in a
// request with no session). nullopt: none, the request is answered where it is.
std::optional<std::size_t> owning_thread(const transport::http_request& req, bool body_read,
                                         std::string_view mcp_path, std::size_t threads);

// The requestState of a 2026-07-28 request's params as gate mints them (32 hex digits), found
// in the body as written; nullopt when there is none, or one gate did not mint (an upstream's
// own state, forwarded from wherever the retry arrives).
std::optional<std::string_view> minted_request_state(std::string_view body);

} // namespace gate::gateway
