// The HTTP/1.1 server both programs stand on (gate and gate-stdio): the listener, one
// coroutine per connection, the request body cap with 413, 100-continue, HEAD, keep-alive,
// single-buffer answers, and a drain bound at shutdown. What a request means is the
// handler's business.
#pragma once

#include "transport/http/fields_arena.hpp"
#include "transport/http/http_reply.hpp"

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gate::transport {

// A request as read: its fields in the connection's arena (fields_arena.hpp), which lives for
// one turn of the connection's loop. Handlers read it or copy it (a copy takes the heap);
// moving it out of the parser would carry the arena beyond that turn.
using http_fields = boost::beast::http::basic_fields<arena_allocator<char>>;
using http_request = boost::beast::http::request<boost::beast::http::string_body, http_fields>;

// What the server refuses on its own, before a handler sees a request: a connection past the
// bound, a header over the cap, too slow or with two Host fields, a body over the cap. The
// server decides that it refuses; the handler says how (the gateway from its table of errors).
enum class server_refusal : std::uint8_t {
    connections_full, // limit: connections
    header_too_large, // limit: bytes
    header_timeout,   // limit: milliseconds
    duplicate_host,   // limit: none (0)
    body_too_large,   // limit: bytes
};

// The answer a handler that keeps no table of its own gives: {"error": message}, 503 with
// Retry-After for connections_full.
http_reply plain_refusal(server_refusal why, std::size_t limit);

class http_handler {
public:
    using time_point = std::chrono::steady_clock::time_point;
    virtual ~http_handler() = default;

    // Runs on the header, before the body is read: an answer refuses the request (the body
    // is then not read and the connection closes after the answer).
    virtual std::optional<http_reply> admit(const http_request& req, time_point start) = 0;
    // The server refuses (`limit`: the bound passed); the answer is sent and the connection
    // closed after it.
    virtual http_reply refused(server_refusal why, std::size_t limit, time_point /*start*/) {
        return plain_refusal(why, limit);
    }
    // The whole request. nullopt: the handler wrote to the stream itself (an event stream)
    // and the connection ends with it. `peer`: the client's address, read once per connection
    // (unspecified if it closed at once), not a getpeername per request.
    virtual boost::asio::awaitable<std::optional<http_reply>>
    respond(http_request& req, boost::beast::tcp_stream& stream,
            const boost::asio::ip::address& peer, time_point start) = 0;
    // With several io threads (http_server::join): the thread whose server must answer this
    // request when it is not this one, asked on the header (`body_read` false) and once more
    // when the body is read; the connection then moves there with what it read. nullopt: here.
    virtual std::optional<std::size_t> owner(const http_request& /*req*/, bool /*body_read*/) {
        return std::nullopt;
    }
};

// How long and how much a connection may take before it is closed: the defenses against
// clients that stall, trickle or never read (docs/security.md, Hostile connections).
struct connection_limits {
    // From accept, or from a request's first byte, to the end of its header.
    std::chrono::milliseconds header_timeout{10'000};
    // A kept-alive connection with no next request within this is closed.
    std::chrono::milliseconds idle_timeout{60'000};
    // Reading a body, and writing an answer.
    std::chrono::milliseconds io_timeout{30'000};
    // A request header larger than this is answered 431.
    std::size_t max_header_bytes = 32 * 1024;
    // Connections open at once; more are answered 503 and closed. 0: derived from the
    // descriptor limit (default_max_connections).
    std::size_t max_connections = 0;
};

// Half the process's descriptor limit (less a reserve), between 16 and 16384: each downstream
// connection may hold one upstream connection (or a child's pipes) of its own.
std::size_t default_max_connections();

class http_server {
public:
    // `name` goes in every answer's Server header.
    http_server(boost::asio::io_context& io, http_handler& handler, std::size_t max_body_bytes,
                std::string name, connection_limits limits = {});

    // Binds host:port (0 picks a free port) and starts accepting; returns the bound port.
    std::uint16_t listen(const std::string& host, std::uint16_t port);
    // The servers of every io thread of the process, this one at `index` among them, each on
    // an io_context of its own: the one that listens hands each new connection to the next in
    // turn, a request whose handler names another's thread (http_handler::owner) moves its
    // connection there, and max_connections bounds their connections together. Called on
    // every member before the first listens.
    using group = std::vector<http_server*>;
    void join(std::shared_ptr<const group> members, std::size_t index);
    // The body cap of requests read from now on (a reload; io thread).
    void set_max_body(std::size_t bytes) { max_body_bytes_ = bytes; }
    // Stops accepting (post; safe from any thread).
    void stop();
    // Waits (up to `bound`) for requests between header and answer, then calls `then` on
    // the io thread. Call stop() first.
    void drain(std::chrono::steady_clock::duration bound, std::function<void()> then);
    bool stopping() const { return stopping_; }
    std::size_t connections() const { return connections_->load(std::memory_order_relaxed); }
    const connection_limits& limits() const { return limits_; }

private:
    boost::asio::awaitable<void> accept_loop();
    // `read`: what another thread's server read of the connection before it moved here.
    boost::asio::awaitable<void> serve(boost::asio::ip::tcp::socket socket, std::string read);
    // The server of the group that takes the next connection (this one when alone).
    http_server& next_in_turn();
    // The server of the thread this request belongs to when it is another's (owner()).
    http_server* elsewhere(const http_request& req, bool body_read);
    // Moves the connection to that thread with the request and what followed it in `buf`:
    // true when it did (the connection is no longer this coroutine's).
    bool moved_elsewhere(const http_request& req, bool body_read,
                         boost::asio::ip::tcp::socket& socket,
                         const boost::beast::flat_buffer& buf);
    // Moves a connection to `to`'s thread with the bytes read of it so far.
    void move_to(http_server& to, boost::asio::ip::tcp::socket& socket, std::string read);
    boost::asio::awaitable<void> discard_rest(boost::beast::tcp_stream& stream);
    boost::asio::awaitable<void> refuse(boost::asio::ip::tcp::socket socket, http_reply reply);

    boost::asio::io_context& io_;
    http_handler& handler_;
    std::size_t max_body_bytes_;
    std::string name_;
    connection_limits limits_;
    std::optional<boost::asio::ip::tcp::acceptor> acceptor_;
    std::atomic<bool> stopping_{false};
    // Shared with each connection's frame: a frame destroyed with the io_context after the
    // server is gone must not write into a dead counter.
    std::shared_ptr<std::size_t> in_flight_ = std::make_shared<std::size_t>(0);
    // Every thread's connections (the group's first server's counter, shared).
    std::shared_ptr<std::atomic<std::size_t>> connections_ =
        std::make_shared<std::atomic<std::size_t>>(0);
    std::shared_ptr<const group> group_;
    std::size_t index_ = 0;
    std::size_t turn_ = 0; // the listener's: which member takes the next connection
};

// Helpers for handlers.
std::optional<std::string_view> header(const http_request& req, std::string_view name);
std::string header_value(const http_request& req, std::string_view name);
// Every header whose name starts with `prefix` (without regard to case): the rest of its name,
// and its value, in the order they came (Mcp-Param-* of a 2026-07-28 tools/call).
std::vector<std::pair<std::string, std::string>> headers_with_prefix(const http_request& req,
                                                                     std::string_view prefix);
std::string_view path_of(std::string_view target);
// Whether an Accept header value allows `type` (absent header and */* allow everything).
bool accepts(std::string_view accept, std::string_view type);

} // namespace gate::transport
