#include "transport/client/http_fetch.hpp"

#include "process/version.hpp"
#include "transport/client/idle_pool.hpp"
#include "transport/client/upstream_connection.hpp"
#include "transport/http/buffered_parse.hpp"
#include "transport/http/deadline_watch.hpp"
#include "transport/http/header_writer.hpp"
#include "transport/http/write_now.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/url/parse.hpp>
#include <charconv>
#include <type_traits>

namespace gate::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using clock = std::chrono::steady_clock;

namespace {

fetch_answer answer_of(http::response<http::string_body> res) {
    fetch_answer answer;
    answer.status = res.result_int();
    answer.content_type = std::string(res[http::field::content_type]);
    answer.body = std::move(res.body());
    for (auto [it, end] = res.equal_range(http::field::cache_control); it != end; ++it)
        answer.cache_control +=
            (answer.cache_control.empty() ? "" : ", ") + std::string(it->value());
    answer.expires = std::string(res[http::field::expires]);
    answer.date = std::string(res[http::field::date]);
    answer.age = std::string(res[http::field::age]);
    answer.www_authenticate = std::string(res[http::field::www_authenticate]);
    return answer;
}

// Where a fetch goes: the URL's parts.
struct peer {
    bool secure = false;
    std::string host, port, origin;
    std::string target;    // the request target: path and query
    std::string authority; // the Host field: the URL's host, and its port when it names one
};

std::optional<peer> peer_of(const std::string& url) {
    auto u = boost::urls::parse_uri(url);
    if (!u || (u->scheme() != "http" && u->scheme() != "https") || u->host().empty())
        return std::nullopt;
    peer p;
    p.secure = u->scheme() == "https";
    p.host = u->host();
    p.port = u->has_port() ? std::string(u->port()) : (p.secure ? "443" : "80");
    p.origin = std::string(p.secure ? "https://" : "http://") + p.host + ":" + p.port;
    p.target = u->encoded_target().empty() ? "/" : std::string(u->encoded_target());
    p.authority = u->has_port() ? p.host + ":" + p.port : p.host;
    return p;
}

// Where a fetch goes and what it sends, written before any connection opens: a field gate
// refuses to write fails the fetch with nothing sent (the name is reported, never the value:
// it may be a secret).
struct prepared {
    peer to;
    http::request<http::string_body> out;
};

std::variant<prepared, std::string> prepare(fetch_request& req, bool keep_alive) {
    auto to = peer_of(req.url);
    if (!to)
        return req.url + " is not an http(s) URL";
    prepared p{std::move(*to), {}};
    auto& out = p.out;
    out = {req.method == "POST" ? http::verb::post : http::verb::get, p.to.target, 11};
    out.set(http::field::host, p.to.authority);
    out.set(http::field::user_agent, "gate/" + std::string(process::gate_version));
    out.set(http::field::accept, "application/json");
    if (!keep_alive)
        out.set(http::field::connection, "close");
    for (const auto& [name, value] : req.headers)
        if (!set_header(out, name, value))
            return "gate refused to send the header " +
                   (header_name_valid(name) ? name : std::string("(an invalid name)")) + " to " +
                   req.url + ": it holds a control character";
    if (!req.body.empty() || req.method == "POST") {
        if (!set_header(out, http::field::content_type, req.content_type))
            return "gate refused to send the Content-Type to " + req.url +
                   ": it holds a control character";
        out.body() = std::move(req.body);
        out.prepare_payload();
    }
    return p;
}

// What one exchange on a connection came to.
struct exchanged {
    boost::system::error_code ec;
    fetch_answer answer;
    bool answered_some = false; // any byte of an answer was read
    bool keep = false;          // the connection may serve the next exchange
};

// Kept only after a complete 2xx answer with nothing after it: a 1xx, or bytes the peer sent
// beyond the answer, would be read as the next question's answer.
void conclude(exchanged& e, http::response_parser<http::string_body>& parser,
              const beast::flat_buffer& buf) {
    auto status = parser.get().result_int();
    e.keep = parser.get().keep_alive() && buf.size() == 0 && status >= 200 && status < 300;
    e.answer = answer_of(parser.release());
}

template <class Stream>
asio::awaitable<exchanged> exchange_on(Stream& stream, beast::tcp_stream& lowest,
                                       const http::request<http::string_body>& out,
                                       std::size_t max_body, std::chrono::milliseconds left) {
    exchanged e;
    lowest.expires_after(left);
    co_await http::async_write(stream, out, asio::redirect_error(asio::use_awaitable, e.ec));
    if (e.ec)
        co_return e;
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
    parser.body_limit(max_body);
    co_await http::async_read(stream, buf, parser, asio::redirect_error(asio::use_awaitable, e.ec));
    e.answered_some = parser.got_some();
    if (!e.ec)
        conclude(e, parser, buf);
    co_return e;
}

// A prepared POST's bytes and its answer on `stream`: what the socket takes at once goes
// without a wait (plain connections), the answer's header is read with plain reads and a body
// that came with it is parsed from the buffer (transport/http/buffered_parse.hpp).
template <class Stream>
asio::awaitable<void> post_over(Stream& stream, const std::string& wire, beast::flat_buffer& buf,
                                http::response_parser<http::string_body>& parser,
                                boost::system::error_code& ec) {
    std::size_t sent = 0;
    if constexpr (std::is_same_v<Stream, tcp::socket>)
        sent = write_now(stream, wire, ec);
    if (!ec && sent < wire.size())
        co_await asio::async_write(stream, asio::buffer(wire.data() + sent, wire.size() - sent),
                                   asio::redirect_error(asio::use_awaitable, ec));
    if (ec)
        co_return;
    co_await read_header(stream, buf, parser, ec);
    if (ec)
        co_return;
    parse_buffered(parser, buf, ec);
    if (!ec && !parser.is_done())
        co_await http::async_read(stream, buf, parser,
                                  asio::redirect_error(asio::use_awaitable, ec));
}

// The deadline is kept by the io thread's watch, which closes the socket when it passes: one
// table slot per question instead of a timer armed and cancelled per read and write.
asio::awaitable<exchanged> post_on(upstream_connection& conn, const std::string& wire,
                                   std::size_t max_body, clock::time_point deadline) {
    exchanged e;
    bool expired = false;
    auto& socket = conn.lowest().socket();
    auto kept = deadline_watch::of(socket.get_executor()).arm(deadline, [&expired, &socket] {
        expired = true;
        boost::system::error_code ignored;
        socket.close(ignored);
    });
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
    parser.body_limit(max_body);
    if (conn.tls)
        co_await post_over(*conn.tls, wire, buf, parser, e.ec);
    else
        co_await post_over(socket, wire, buf, parser, e.ec);
    kept.disarm();
    e.answered_some = parser.got_some();
    if (expired)
        e.ec = beast::error::timeout;
    else if (!e.ec)
        conclude(e, parser, buf);
    co_return e;
}

using resolved = std::variant<std::vector<tcp::endpoint>, std::string>;

// One resolution's answer, awaited by the fetch that started it until its time runs out.
struct resolution {
    explicit resolution(asio::any_io_executor ex) : timer(std::move(ex)) {}
    asio::steady_timer timer;
    std::optional<resolved> found;
};

// Parameters by value: the coroutine outlives the fetch that spawned it when the fetch stops
// waiting.
asio::awaitable<void> resolve_into(std::shared_ptr<resolution> r, resolve_step step,
                                   std::string host, std::string port) {
    auto found = step ? co_await step(host, port)
                      : co_await resolve_host(r->timer.get_executor(), host, port);
    r->found = std::move(found);
    r->timer.cancel();
}

// The endpoints of host:port, or a failure once `timeout` passed without them. The system
// resolver runs getaddrinfo on a thread of its own, which nothing cancels: a resolver that
// never answers is left to finish alone rather than holding the fetch past its timeout.
asio::awaitable<resolved> resolve_within(asio::any_io_executor ex, const resolve_step& step,
                                         const std::string& host, const std::string& port,
                                         std::chrono::milliseconds timeout) {
    auto r = std::make_shared<resolution>(ex);
    r->timer.expires_after(timeout);
    asio::co_spawn(ex, resolve_into(r, step, host, port), asio::detached);
    if (!r->found) { // an IP literal is its own answer, found before the wait
        boost::system::error_code ec;
        co_await r->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    if (!r->found)
        co_return "resolution timeout after " + std::to_string(timeout.count()) + " ms";
    co_return std::move(*r->found);
}

// The exchange on a kept connection, or on a fresh one, within `timeout` from now; `exchange`
// makes one exchange on a connection by a deadline. `to`: a peer or a prepared_post.
template <class Peer, class Exchange>
asio::awaitable<std::variant<fetch_answer, std::string>>
fetch_on(asio::any_io_executor ex, const std::string& url, const Peer& to,
         const resolve_step& resolve, std::chrono::milliseconds timeout, std::size_t max_body,
         std::shared_ptr<asio::ssl::context> tls, fetch_pool* pool, Exchange exchange) {
    auto deadline = clock::now() + timeout;
    auto left = [&] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    };
    if (to.secure && !tls)
        tls = make_client_tls_context();
    for (bool first = true;; first = false) {
        auto kept = pool && first ? pool->take(to.origin) : std::nullopt;
        bool reused = kept.has_value();
        upstream_connection conn;
        if (reused) {
            conn = std::move(*kept);
        } else {
            auto found = co_await resolve_within(ex, resolve, to.host, to.port, left());
            if (auto* why = std::get_if<std::string>(&found))
                co_return "cannot resolve " + to.host + " for " + url + ": " + *why;
            auto opened = co_await open_upstream_connection(
                ex, std::get<0>(found), to.host, to.secure ? tls.get() : nullptr, left());
            if (auto* e = std::get_if<std::string>(&opened))
                co_return url + ": " + *e;
            conn = std::move(std::get<upstream_connection>(opened));
        }
        auto e = co_await exchange(conn, deadline);
        // A kept connection the peer closed while it idled fails before any answer: once more
        // on a fresh one (the request may have arrived: the pool serves questions, which are
        // safe to ask twice).
        if (reused && e.ec && !e.answered_some && e.ec != beast::error::timeout)
            continue;
        if (e.ec == beast::error::timeout)
            co_return url + " did not answer within " + std::to_string(timeout.count()) + " ms";
        if (e.ec == http::error::body_limit)
            co_return url + " answered more than " + std::to_string(max_body) + " bytes";
        if (e.ec)
            co_return url + ": " + e.ec.message();
        if (pool && e.keep)
            pool->give(to.origin, std::move(conn));
        co_return std::move(e.answer);
    }
}

} // namespace

asio::awaitable<std::variant<fetch_answer, std::string>>
http_fetch(asio::any_io_executor ex, fetch_request req, std::shared_ptr<asio::ssl::context> tls,
           fetch_pool* pool) {
    auto ready = prepare(req, pool != nullptr);
    if (auto* why = std::get_if<std::string>(&ready))
        co_return std::move(*why);
    auto& p = std::get<prepared>(ready);
    auto exchange = [&](upstream_connection& conn, clock::time_point deadline) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
        return conn.tls ? exchange_on(*conn.tls, conn.lowest(), p.out, req.max_body, left)
                        : exchange_on(*conn.plain, conn.lowest(), p.out, req.max_body, left);
    };
    co_return co_await fetch_on(ex, req.url, p.to, req.resolve, req.timeout, req.max_body,
                                std::move(tls), pool, exchange);
}

std::string prepared_post::wire(std::string_view body, std::string_view fields) const {
    char digits[24];
    auto length = std::string_view(
        digits, std::to_chars(digits, digits + sizeof digits, body.size()).ptr - digits);
    std::string out;
    out.reserve(head.size() + fields.size() + length.size() + body.size() + 20);
    out.append(head).append(fields).append("Content-Length: ").append(length);
    out.append("\r\n\r\n").append(body);
    return out;
}

std::variant<prepared_post, std::string>
prepare_post(std::string url, std::string_view content_type,
             const std::vector<std::pair<std::string, std::string>>& headers) {
    auto to = peer_of(url);
    if (!to)
        return url + " is not an http(s) URL";
    prepared_post p;
    p.secure = to->secure;
    p.host = std::move(to->host);
    p.port = std::move(to->port);
    p.origin = std::move(to->origin);
    auto& wire = p.head;
    wire.append("POST ").append(to->target).append(" HTTP/1.1\r\n");
    header_writer head(wire);
    head.field("Host", to->authority);
    wire.append("User-Agent: gate/").append(process::gate_version).append("\r\n");
    wire.append("Accept: application/json\r\n");
    for (const auto& [name, value] : headers)
        if (!head.field_named(name, value))
            return "gate refused to send the header " +
                   (header_name_valid(name) ? name : std::string("(an invalid name)")) + " to " +
                   url + ": it holds a control character";
    if (!head.field("Content-Type", content_type))
        return "gate refused to send the Content-Type to " + url + ": it holds a control character";
    p.url = std::move(url);
    return p;
}

asio::awaitable<std::variant<fetch_answer, std::string>>
http_post(asio::any_io_executor ex, const prepared_post& to, std::string_view body,
          std::chrono::milliseconds timeout, std::size_t max_body,
          std::shared_ptr<asio::ssl::context> tls, fetch_pool& pool, std::string_view fields) {
    auto wire = to.wire(body, fields);
    auto exchange = [&](upstream_connection& conn, clock::time_point deadline) {
        return post_on(conn, wire, max_body, deadline);
    };
    co_return co_await fetch_on(ex, to.url, to, to.resolve, timeout, max_body, std::move(tls),
                                &pool, exchange);
}

struct fetch_pool::kept {
    std::string origin;
    idle_pool<upstream_connection> idle;
};

fetch_pool::fetch_pool(std::size_t capacity)
    : kept_(std::make_unique<kept>(kept{{}, {capacity, std::chrono::seconds(4)}})) {}

fetch_pool::~fetch_pool() = default;

std::optional<upstream_connection> fetch_pool::take(const std::string& origin) {
    if (origin != kept_->origin)
        return std::nullopt;
    // One with unread bytes (the peer spoke while it idled) answers nothing gate asked.
    for (;;) {
        auto c = kept_->idle.take(clock::now());
        boost::system::error_code ec;
        if (!c || (c->lowest().socket().available(ec) == 0 && !ec))
            return c;
    }
}

void fetch_pool::give(const std::string& origin, upstream_connection c) {
    if (origin != kept_->origin) {
        kept_->idle.clear();
        kept_->origin = origin;
    }
    kept_->idle.give(std::move(c), clock::now());
}

std::size_t fetch_pool::size() const {
    return kept_->idle.size();
}

} // namespace gate::transport
