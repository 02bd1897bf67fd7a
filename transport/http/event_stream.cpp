#include "transport/http/event_stream.hpp"

#include "transport/http/header_writer.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <spdlog/spdlog.h>
#include <sstream>

namespace gate::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

void message_queue::said_dropped() const {
    spdlog::warn("a stream's client is not reading: its oldest messages are dropped past {} "
                 "messages or {} bytes queued (the answer never)",
                 max_messages, max_bytes);
}

asio::awaitable<void> message_queue::wait() {
    if (!frames.empty())
        co_return;
    boost::system::error_code ec; // cancellation is the wake-up
    wake.expires_at(asio::steady_timer::time_point::max());
    co_await wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

std::string event_stream_head(unsigned version, std::string_view server,
                              std::optional<std::string> session_header) {
    http::response<http::empty_body> res{http::status::ok, version};
    res.set(http::field::server, server);
    res.set(http::field::content_type, "text/event-stream");
    res.set(http::field::cache_control, "no-cache");
    // Through the one writer, like every field gate writes (docs/security.md).
    if (session_header && !set_header(res, std::string_view("Mcp-Session-Id"), *session_header))
        spdlog::error("answer header Mcp-Session-Id left out: it holds a control character");
    res.chunked(true);
    std::ostringstream out;
    out << res.base();
    return std::move(out).str();
}

asio::awaitable<boost::system::error_code>
open_event_stream(beast::tcp_stream& stream, unsigned version, std::string_view server,
                  std::optional<std::string> session_header) {
    auto head = event_stream_head(version, server, std::move(session_header));
    boost::system::error_code ec;
    stream.expires_after(std::chrono::seconds(30));
    co_await asio::async_write(stream, asio::buffer(head),
                               asio::redirect_error(asio::use_awaitable, ec));
    co_return ec;
}

asio::awaitable<boost::system::error_code> write_event_chunk(beast::tcp_stream& stream,
                                                             const std::string& frame, bool last,
                                                             std::string_view head) {
    std::string wire;
    wire.reserve(head.size() + frame.size() + 32);
    wire.append(head);
    if (!frame.empty()) {
        char size[17];
        auto [end, _] = std::to_chars(size, size + sizeof size, frame.size(), 16);
        wire.append(size, end).append("\r\n").append(frame).append("\r\n");
    }
    if (last)
        wire.append("0\r\n\r\n");
    boost::system::error_code ec;
    stream.expires_after(std::chrono::seconds(30));
    co_await asio::async_write(stream, asio::buffer(wire),
                               asio::redirect_error(asio::use_awaitable, ec));
    co_return ec;
}

asio::awaitable<void> close_event_stream(beast::tcp_stream& stream) {
    boost::system::error_code ec;
    stream.expires_after(std::chrono::seconds(5));
    co_await asio::async_write(stream, http::make_chunk_last(),
                               asio::redirect_error(asio::use_awaitable, ec));
}

} // namespace gate::transport
