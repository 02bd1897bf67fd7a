#include "transport/http/http_server.hpp"

#include "transport/http/buffered_parse.hpp"
#include "transport/http/deadline_watch.hpp"
#include "transport/http/header_writer.hpp"
#include "transport/http/write_now.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <limits>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

namespace gate::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using clock = std::chrono::steady_clock;

namespace {

// The whole answer in one buffer (one write, no per-field buffer sequence).
std::string serialize_reply(const http_reply& reply, std::string_view server, unsigned version,
                            bool keep_alive, bool head_only) {
    std::string wire;
    wire.reserve(reply.body.size() + 256);
    wire.append(version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ");
    wire.append(std::to_string(static_cast<unsigned>(reply.status))).append(" ");
    wire.append(http::obsolete_reason(reply.status)).append("\r\nServer: ");
    wire.append(server).append("\r\n");
    if (!reply.content_type.empty())
        wire.append("Content-Type: ").append(reply.content_type).append("\r\n");
    header_writer head(wire);
    for (const auto& [k, v] : reply.headers)
        if (!head.field_named(k, v)) // gate's own value gone wrong: left out, never written raw
            spdlog::error("answer header {} left out: it holds a control character",
                          header_name_valid(k) ? std::string_view(k) : "(an invalid name)");
    if (!keep_alive)
        wire.append("Connection: close\r\n");
    else if (version == 10)
        wire.append("Connection: keep-alive\r\n");
    wire.append("Content-Length: ").append(std::to_string(reply.body.size()));
    wire.append("\r\n\r\n");
    if (!head_only) // HEAD: the same header, no body, or the connection falls out of step
        wire.append(reply.body);
    return wire;
}

// How many Host fields a request has: a scan of its few fields by their known name, where
// the fields' own count searches its tree with case-insensitive compares.
std::size_t host_fields(const http_request& req) {
    std::size_t n = 0;
    for (const auto& f : req)
        n += f.name() == http::field::host;
    return n;
}

// The first field named `name`, case-insensitively, as the fields' own find answers. A scan of
// the few fields a request carries, by length first, costs a third of that find (a tree search
// comparing whole names case-insensitively at every node), and a request is asked for about
// ten of them.
http_request::const_iterator find_field(const http_request& req, std::string_view name) {
    for (auto it = req.begin(); it != req.end(); ++it) {
        auto n = it->name_string();
        if (n.size() == name.size() && beast::iequals(n, name))
            return it;
    }
    return req.end();
}

} // namespace

std::optional<std::string_view> header(const http_request& req, std::string_view name) {
    auto it = find_field(req, name);
    if (it == req.end())
        return std::nullopt;
    return it->value();
}

std::string header_value(const http_request& req, std::string_view name) {
    auto it = find_field(req, name);
    return it == req.end() ? std::string() : std::string(it->value());
}

std::vector<std::pair<std::string, std::string>> headers_with_prefix(const http_request& req,
                                                                     std::string_view prefix) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& field : req) {
        auto name = field.name_string();
        if (name.size() > prefix.size() && beast::iequals(name.substr(0, prefix.size()), prefix))
            out.emplace_back(std::string(name.substr(prefix.size())), std::string(field.value()));
    }
    return out;
}

std::string_view path_of(std::string_view target) {
    return target.substr(0, target.find('?'));
}

bool accepts(std::string_view accept, std::string_view type) {
    return accept.empty() || accept.find(type) != std::string_view::npos ||
           accept.find("*/*") != std::string_view::npos;
}

std::size_t default_max_connections() {
    rlimit nofile{};
    if (getrlimit(RLIMIT_NOFILE, &nofile) != 0 || nofile.rlim_cur == RLIM_INFINITY)
        return 16384;
    auto usable = nofile.rlim_cur > 128 ? (nofile.rlim_cur - 128) / 2 : 16;
    return std::clamp<std::size_t>(usable, 16, 16384);
}

namespace {

// The soft descriptor limit raised to the hard one once per process (as Go's runtime does):
// the default soft limit of 1024 is a relic that would cap connections for no reason.
void raise_descriptor_limit() {
    static const bool once = [] {
        rlimit nofile{};
        if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
            nofile.rlim_cur = nofile.rlim_max;
            setrlimit(RLIMIT_NOFILE, &nofile);
        }
        return true;
    }();
    (void)once;
}

} // namespace

http_server::http_server(asio::io_context& io, http_handler& handler, std::size_t max_body_bytes,
                         std::string name, connection_limits limits)
    : io_(io), handler_(handler), max_body_bytes_(max_body_bytes), name_(std::move(name)),
      limits_(limits) {
    raise_descriptor_limit();
    if (limits_.max_connections == 0)
        limits_.max_connections = default_max_connections();
}

std::uint16_t http_server::listen(const std::string& host, std::uint16_t port) {
    auto& acc = acceptor_.emplace(io_);
    tcp::endpoint ep(asio::ip::make_address(host), port);
    acc.open(ep.protocol());
    acc.set_option(asio::socket_base::reuse_address(true));
    acc.bind(ep);
    acc.listen(asio::socket_base::max_listen_connections);
    asio::co_spawn(io_, accept_loop(), asio::detached);
    return acc.local_endpoint().port();
}

void http_server::stop() {
    stopping_ = true;
    asio::post(io_, [this] {
        if (acceptor_)
            acceptor_->close();
    });
}

void http_server::drain(clock::duration bound, std::function<void()> then) {
    asio::co_spawn(
        io_,
        [this, bound, then = std::move(then)]() -> asio::awaitable<void> {
            // Requests already being answered finish (bounded); new connections are refused.
            auto deadline = clock::now() + bound;
            asio::steady_timer tick(io_);
            while (*in_flight_ > 0 && clock::now() < deadline) {
                tick.expires_after(std::chrono::milliseconds(20));
                boost::system::error_code ec;
                co_await tick.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            }
            if (auto n = *in_flight_; n > 0)
                spdlog::warn("shutdown: {} request{} cut after the drain bound", n,
                             n == 1 ? "" : "s");
            then();
        },
        asio::detached);
}

namespace {

// Whether the buffer holds a request header's end: reading the header then needs no I/O.
bool header_buffered(const beast::flat_buffer& buf) {
    auto data = buf.data();
    std::string_view text(static_cast<const char*>(data.data()), data.size());
    return text.find("\r\n\r\n") != std::string_view::npos;
}

} // namespace

asio::awaitable<void> http_server::accept_loop() {
    for (;;) {
        boost::system::error_code ec;
        auto& to = next_in_turn();
        // Accepted straight onto the io_context of the thread that serves it.
        auto socket =
            co_await acceptor_->async_accept(to.io_, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            if (ec == asio::error::operation_aborted || stopping_)
                co_return;
            spdlog::warn("accept failed: {}", ec.message());
            continue;
        }
        socket.set_option(tcp::no_delay(true), ec); // best effort
        if (connections_->load(std::memory_order_relaxed) >= limits_.max_connections) {
            // Answered at once and closed, without reading: the client learns why, and the
            // connection costs nothing more (docs/security.md).
            asio::co_spawn(to.io_,
                           to.refuse(std::move(socket),
                                     handler_.refused(server_refusal::connections_full,
                                                      limits_.max_connections, clock::now())),
                           asio::detached);
            continue;
        }
        asio::co_spawn(to.io_, to.serve(std::move(socket), {}), asio::detached);
    }
}

http_reply plain_refusal(server_refusal why, std::size_t limit) {
    auto plain = [](http::status status, std::string text) {
        return http_reply::json(status, R"({"error":")" + text + R"("})");
    };
    auto n = std::to_string(limit);
    switch (why) {
    case server_refusal::connections_full: {
        auto reply =
            plain(http::status::service_unavailable, "too many open connections: at most " + n);
        reply.headers.emplace_back("Retry-After", "1");
        return reply;
    }
    case server_refusal::header_too_large:
        return plain(http::status::request_header_fields_too_large,
                     "request header larger than " + n + " bytes");
    case server_refusal::header_timeout:
        return plain(http::status::request_timeout,
                     "the request header did not arrive within " + n + " ms");
    case server_refusal::duplicate_host:
        return plain(http::status::bad_request, "more than one Host header");
    case server_refusal::body_too_large:
        break;
    }
    return plain(http::status::payload_too_large,
                 "request body exceeds the limit of " + n + " bytes");
}

asio::awaitable<void> http_server::refuse(tcp::socket socket, http_reply reply) {
    beast::tcp_stream stream(std::move(socket));
    auto wire = serialize_reply(reply, name_, 11, false, false);
    stream.expires_after(std::chrono::seconds(2));
    boost::system::error_code ec;
    co_await asio::async_write(stream, asio::buffer(wire),
                               asio::redirect_error(asio::use_awaitable, ec));
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    // Closing with unread input would reset the connection and could destroy the answer
    // before the client reads it: what the client still sends is read and dropped until it
    // closes, for the same 2 s at most.
    char sink[4096];
    while (!ec) {
        co_await stream.async_read_some(asio::buffer(sink),
                                        asio::redirect_error(asio::use_awaitable, ec));
    }
}

namespace {

using request_parser = http::request_parser<http::string_body, arena_allocator<char>>;

// One of a server's counters (connections open, requests being answered), held for a scope.
template <class Count> struct held_count {
    explicit held_count(std::shared_ptr<Count> count) : n(std::move(count)) { ++*n; }
    held_count(const held_count&) = delete;
    held_count& operator=(const held_count&) = delete;
    ~held_count() { --*n; }
    std::shared_ptr<Count> n;
};

// What a deadline of the io thread's watch does to a connection when it passes.
struct close_socket {
    tcp::socket& socket;
    void operator()() const {
        boost::system::error_code ignored;
        socket.close(ignored);
    }
};

// A header not whole in the buffer after the first read, read with a bounded time from the
// request's first byte: a client that trickles it (slowloris) is answered 408 and closed. A
// timer of its own, not a deadline that closes the socket, which would close it before the
// 408 could be written.
asio::awaitable<boost::system::error_code> read_header_in_time(beast::tcp_stream& stream,
                                                               beast::flat_buffer& buf,
                                                               request_parser& parser,
                                                               std::chrono::milliseconds bound) {
    struct header_watch {
        bool done = false, expired = false;
    };
    auto watch = std::make_shared<header_watch>();
    asio::steady_timer deadline(stream.get_executor(), bound);
    deadline.async_wait([watch, &socket = stream.socket()](boost::system::error_code wec) {
        if (wec || watch->done)
            return;
        watch->expired = true;
        boost::system::error_code ignored;
        socket.cancel(ignored);
    });
    boost::system::error_code ec;
    co_await http::async_read_header(stream, buf, parser,
                                     asio::redirect_error(asio::use_awaitable, ec));
    watch->done = true;
    deadline.cancel();
    if (watch->expired)
        ec = beast::error::timeout;
    co_return ec;
}

// The limits of a fresh parser. Its body cap is applied once the header is in: Beast
// would otherwise fail the header read on a large Content-Length and we could not answer 413.
void limit_header(request_parser& parser, std::size_t max_header_bytes) {
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    parser.header_limit(static_cast<std::uint32_t>(max_header_bytes));
}

// A request's parser, its fields in `arena` and its header bounded.
class arena_parser : public request_parser {
public:
    arena_parser(fields_arena& arena, std::size_t max_header_bytes)
        : request_parser(std::piecewise_construct, std::make_tuple(),
                         std::make_tuple(arena_allocator<char>(&arena))) {
        limit_header(*this, max_header_bytes);
    }
};

// The header, if the buffer holds its end (the usual case: one read brings it whole), parsed
// without I/O and with no deadline of its own: whether it was (then `ec` is its error).
bool parse_buffered_header(request_parser& parser, beast::flat_buffer& buf,
                           boost::system::error_code& ec) {
    if (!header_buffered(buf))
        return false;
    // The parser stops after the header (it is not eager): the body is read after admission,
    // under its own cap.
    auto n = parser.put(buf.data(), ec);
    buf.consume(n);
    if (ec != http::error::need_more)
        return true;
    ec = {};
    return false;
}

struct refusal {
    server_refusal why;
    std::size_t limit;
};

// Why a request is refused on its header alone, answered and the connection closed: a header
// over the cap (431), one that took too long (408), or two Host fields (400). `ec` is the
// header read's error; a request whose read failed otherwise is not answered.
std::optional<refusal> header_refusal(const boost::system::error_code& ec, const http_request& req,
                                      const connection_limits& limits) {
    if (ec == http::error::header_limit)
        return refusal{server_refusal::header_too_large, limits.max_header_bytes};
    if (ec == beast::error::timeout)
        return refusal{server_refusal::header_timeout,
                       static_cast<std::size_t>(limits.header_timeout.count())};
    // RFC 9112 section 3.2: a proxy in front may route by one Host while gate checks another,
    // so neither is taken.
    if (!ec && host_fields(req) > 1)
        return refusal{server_refusal::duplicate_host, 0};
    return std::nullopt;
}

// The body, as far as the buffer holds it, under the cap `max_body`: body_limit when its
// declared length is already over.
boost::system::error_code take_buffered_body(request_parser& parser, beast::flat_buffer& buf,
                                             std::size_t max_body) {
    boost::system::error_code ec;
    if (parser.is_done())
        return ec;
    auto len = parser.content_length();
    if (len && *len > max_body)
        return http::error::body_limit;
    // Set once: the parser counts what it takes against it, from here on.
    parser.body_limit(max_body);
    parse_buffered(parser, buf, ec);
    return ec;
}

// The rest of a body the buffer did not hold, within the I/O bound.
asio::awaitable<boost::system::error_code> read_rest_of_body(beast::tcp_stream& stream,
                                                             beast::flat_buffer& buf,
                                                             request_parser& parser,
                                                             std::chrono::milliseconds bound) {
    boost::system::error_code ec;
    stream.expires_after(bound);
    // curl and others wait for this before sending a larger body.
    if (beast::iequals(parser.get()[http::field::expect], "100-continue")) {
        static constexpr std::string_view go_on = "HTTP/1.1 100 Continue\r\n\r\n";
        co_await asio::async_write(stream, asio::buffer(go_on),
                                   asio::redirect_error(asio::use_awaitable, ec));
    }
    if (!ec)
        co_await http::async_read(stream, buf, parser,
                                  asio::redirect_error(asio::use_awaitable, ec));
    stream.expires_never();
    co_return ec;
}

// Whether a connection stays open after an answer the handler streamed (ended with the last
// chunk). The client may reuse the connection, as it may after any keep-alive answer: closing
// here would race its next request on this connection. HTTP/1.0 has no chunked encoding: such
// a client reads to the close.
bool open_after_stream(const http_request& req, bool stopping) {
    return req.keep_alive() && req.version() >= 11 && !stopping;
}

// The 413 of a body over the cap, as the handler words it; the connection closes after it.
http_reply body_too_large(http_handler& handler, std::size_t max_body,
                          http_handler::time_point start) {
    auto reply = handler.refused(server_refusal::body_too_large, max_body, start);
    reply.close = true;
    return reply;
}

// What the socket did not take at once (a slow reader, a large answer), within the I/O bound.
asio::awaitable<boost::system::error_code> write_rest(beast::tcp_stream& stream,
                                                      std::string_view rest, deadline_watch& watch,
                                                      close_socket closer,
                                                      std::chrono::milliseconds bound) {
    boost::system::error_code ec;
    auto writing = watch.arm(clock::now() + bound, closer);
    co_await asio::async_write(stream, asio::buffer(rest),
                               asio::redirect_error(asio::use_awaitable, ec));
    co_return ec;
}

// A connection's buffer, holding what another thread read of it before it moved here.
beast::flat_buffer buffer_holding(const std::string& read) {
    beast::flat_buffer buf;
    buf.commit(asio::buffer_copy(buf.prepare(read.size()), asio::buffer(read)));
    return buf;
}

// The client's address, read once for the connection's requests (unspecified if it closed).
asio::ip::address peer_of(const tcp::socket& socket) {
    boost::system::error_code ec;
    return socket.remote_endpoint(ec).address();
}

} // namespace

// The idle wait and the answer's write are bounded by the io thread's deadline watch (one timer
// for every connection) rather than the stream's expiry (a timer armed and cancelled per read
// and per write); a deadline that passes closes the socket.
asio::awaitable<void> http_server::serve(tcp::socket socket, std::string read) {
    held_count open_connection(connections_);
    const auto peer = peer_of(socket);
    beast::tcp_stream stream(std::move(socket));
    auto buf = buffer_holding(read);
    auto& watch = deadline_watch::of(stream.get_executor());
    allow_write_now(stream.socket());
    close_socket closer{stream.socket()};
    for (bool first = true;; first = false) {
        fields_arena arena; // outlives the parser, whose fields it holds
        arena_parser parser(arena, limits_.max_header_bytes);
        boost::system::error_code ec;
        if (buf.size() == 0) {
            // Between requests a connection may idle; a new one is expected to speak at once.
            auto idle = watch.arm(
                clock::now() + (first ? limits_.header_timeout : limits_.idle_timeout), closer);
            // From the socket itself: the watch keeps this wait's deadline, and a read through
            // the stream would arm and check its own (unused) expiry around every read.
            auto n = co_await stream.socket().async_read_some(
                buf.prepare(4096), asio::redirect_error(asio::use_awaitable, ec));
            buf.commit(n);
            if (ec)
                break;
        }
        if (!parse_buffered_header(parser, buf, ec))
            ec = co_await read_header_in_time(stream, buf, parser, limits_.header_timeout);
        if (auto refused = header_refusal(ec, parser.get(), limits_)) {
            co_await refuse(std::move(stream.socket()),
                            handler_.refused(refused->why, refused->limit, clock::now()));
            co_return;
        }
        if (ec)
            break;
        if (moved_elsewhere(parser.get(), false, stream.socket(), buf))
            co_return;
        auto start = clock::now();
        held_count in_flight(in_flight_);
        std::optional<http_reply> reply = handler_.admit(parser.get(), start);
        if (reply) {
            reply->close = reply->close || !parser.is_done();
        } else {
            auto max_body = max_body_bytes_; // this request's, whatever a reload sets meanwhile
            ec = take_buffered_body(parser, buf, max_body);
            if (!ec && !parser.is_done())
                ec = co_await read_rest_of_body(stream, buf, parser, limits_.io_timeout);
            if (ec == http::error::body_limit) {
                reply = body_too_large(handler_, max_body, start);
            } else if (ec) {
                break;
            } else if (moved_elsewhere(parser.get(), true, stream.socket(), buf)) {
                co_return;
            } else {
                reply = co_await handler_.respond(parser.get(), stream, peer, start);
                if (!reply) { // streamed by the handler
                    if (!open_after_stream(parser.get(), stopping_))
                        break;
                    stream.expires_never(); // what the stream's writes set
                    continue;
                }
            }
        }
        const auto& req = parser.get();
        bool keep_alive = !reply->close && req.keep_alive() && !stopping_;
        auto wire = serialize_reply(*reply, name_, req.version(), keep_alive,
                                    req.method() == http::verb::head);
        auto sent = write_now(stream.socket(), wire, ec); // nearly always all of it, at once
        if (!ec && sent < wire.size())
            ec = co_await write_rest(stream, std::string_view(wire).substr(sent), watch, closer,
                                     limits_.io_timeout);
        if (ec)
            break;
        if (!keep_alive) {
            if (reply->close)
                co_await discard_rest(stream);
            break;
        }
    }
    boost::system::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

asio::awaitable<void> http_server::discard_rest(beast::tcp_stream& stream) {
    // The client may still be sending the body we refused. Closing with unread bytes makes the
    // kernel answer with a reset that can destroy our response before the client reads it, so
    // half-close first and discard what arrives, within bounds.
    boost::system::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream.expires_after(std::chrono::seconds(2));
    std::array<char, 16384> sink;
    std::size_t total = 0;
    const std::size_t cap = 4 * max_body_bytes_ + (1u << 20);
    while (!ec && total < cap)
        total += co_await stream.async_read_some(asio::buffer(sink),
                                                 asio::redirect_error(asio::use_awaitable, ec));
}

} // namespace gate::transport
