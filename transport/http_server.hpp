// The HTTP/1.1 server both programs stand on (gate and gate-stdio): the listener, one
// coroutine per connection, the request body cap with 413, 100-continue, HEAD, keep-alive,
// single-buffer answers, and a drain bound at shutdown. What a request means is the
// handler's business.
#pragma once

#include "transport/http_reply.hpp"

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace gate::transport {

using http_request = boost::beast::http::request<boost::beast::http::string_body>;

class http_handler {
public:
    using time_point = std::chrono::steady_clock::time_point;
    virtual ~http_handler() = default;

    // Runs on the header, before the body is read: an answer refuses the request (the body
    // is then not read and the connection closes after the answer).
    virtual std::optional<http_reply> admit(const http_request& req, time_point start) = 0;
    // The body was over the cap; the server answers 413 itself.
    virtual void body_too_large(std::size_t limit, time_point start) = 0;
    // The whole request. nullopt: the handler wrote to the stream itself (an event stream)
    // and the connection ends with it.
    virtual boost::asio::awaitable<std::optional<http_reply>>
    respond(http_request& req, boost::beast::tcp_stream& stream, time_point start) = 0;
};

class http_server {
public:
    // `name` goes in every answer's Server header.
    http_server(boost::asio::io_context& io, http_handler& handler, std::size_t max_body_bytes,
                std::string name);

    // Binds host:port (0 picks a free port) and starts accepting; returns the bound port.
    std::uint16_t listen(const std::string& host, std::uint16_t port);
    // Stops accepting (post; safe from any thread).
    void stop();
    // Waits (up to `bound`) for requests between header and answer, then calls `then` on
    // the io thread. Call stop() first.
    void drain(std::chrono::steady_clock::duration bound, std::function<void()> then);
    bool stopping() const { return stopping_; }

private:
    boost::asio::awaitable<void> accept_loop();
    boost::asio::awaitable<void> serve(boost::asio::ip::tcp::socket socket);
    boost::asio::awaitable<void> discard_rest(boost::beast::tcp_stream& stream);

    boost::asio::io_context& io_;
    http_handler& handler_;
    std::size_t max_body_bytes_;
    std::string name_;
    std::optional<boost::asio::ip::tcp::acceptor> acceptor_;
    std::atomic<bool> stopping_{false};
    // Shared with each connection's frame: a frame destroyed with the io_context after the
    // server is gone must not write into a dead counter.
    std::shared_ptr<std::size_t> in_flight_ = std::make_shared<std::size_t>(0);
};

// Helpers for handlers.
std::optional<std::string_view> header(const http_request& req, std::string_view name);
std::string header_value(const http_request& req, std::string_view name);
std::string_view path_of(std::string_view target);
// Whether an Accept header value allows `type` (absent header and */* allow everything).
bool accepts(std::string_view accept, std::string_view type);

} // namespace gate::transport
