// A write that does not wait: as much of a message as the socket takes at once, which for the
// small messages of MCP is nearly always all of it. Only what is left (a full socket: a slow
// reader, a large answer) needs an asynchronous write. An asynchronous write that completes
// at once still costs a reactor registration, a queued completion and a coroutine's
// suspension and resumption; on the proxy path those were two per call.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>
#include <string_view>

namespace gate::transport {

// Puts the socket in non-blocking mode (once per connection, before any write_now): a write
// that would block returns what it wrote instead of blocking the io thread.
void allow_write_now(boost::asio::ip::tcp::socket& s);

// Writes from the start of `data` until the socket would block or all is written; returns
// the bytes written. `ec` is set for a failure of the connection, not for a full socket.
std::size_t write_now(boost::asio::ip::tcp::socket& s, std::string_view data,
                      boost::system::error_code& ec);

} // namespace gate::transport
