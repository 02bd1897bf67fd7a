#include "transport/client/http_fetch.hpp"

#include "transport/client/idle_pool.hpp"
#include "transport/client/upstream_connection.hpp"
#include "transport/http/header_writer.hpp"
#include "transport/process/version.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/url/parse.hpp>

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
    return answer;
}

// Where a fetch goes and what it sends, written before any connection opens: a field gate
// refuses to write fails the fetch with nothing sent (the name is reported, never the value:
// it may be a secret).
struct prepared {
    bool secure = false;
    std::string host, port, origin;
    http::request<http::string_body> out;
};

std::variant<prepared, std::string> prepare(fetch_request& req, bool keep_alive) {
    auto u = boost::urls::parse_uri(req.url);
    if (!u || (u->scheme() != "http" && u->scheme() != "https") || u->host().empty())
        return req.url + " is not an http(s) URL";
    prepared p;
    p.secure = u->scheme() == "https";
    p.host = u->host();
    p.port = u->has_port() ? std::string(u->port()) : (p.secure ? "443" : "80");
    p.origin = std::string(p.secure ? "https://" : "http://") + p.host + ":" + p.port;
    std::string target = u->encoded_target().empty() ? "/" : std::string(u->encoded_target());
    auto& out = p.out;
    out = {req.method == "POST" ? http::verb::post : http::verb::get, target, 11};
    out.set(http::field::host, u->has_port() ? p.host + ":" + p.port : p.host);
    out.set(http::field::user_agent, "gate/" + std::string(gate_version));
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
    if (e.ec)
        co_return e;
    // Kept only after a complete 2xx answer with nothing after it: a 1xx, or bytes the peer
    // sent beyond the answer, would be read as the next question's answer.
    auto status = parser.get().result_int();
    e.keep = parser.get().keep_alive() && buf.size() == 0 && status >= 200 && status < 300;
    e.answer = answer_of(parser.release());
    co_return e;
}

} // namespace

asio::awaitable<std::variant<fetch_answer, std::string>>
http_fetch(asio::any_io_executor ex, fetch_request req, std::shared_ptr<asio::ssl::context> tls,
           fetch_pool* pool) {
    auto ready = prepare(req, pool != nullptr);
    if (auto* why = std::get_if<std::string>(&ready))
        co_return std::move(*why);
    auto& p = std::get<prepared>(ready);
    auto deadline = clock::now() + req.timeout;
    auto left = [&] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    };
    if (p.secure && !tls)
        tls = make_client_tls_context();
    for (bool first = true;; first = false) {
        auto kept = pool && first ? pool->take(p.origin) : std::nullopt;
        bool reused = kept.has_value();
        upstream_connection conn;
        if (reused) {
            conn = std::move(*kept);
        } else {
            auto found = co_await resolve_host(ex, p.host, p.port);
            if (auto* why = std::get_if<std::string>(&found))
                co_return "cannot resolve " + p.host + " for " + req.url + ": " + *why;
            auto opened = co_await open_upstream_connection(ex, std::get<0>(found), p.host,
                                                            p.secure ? tls.get() : nullptr, left());
            if (auto* e = std::get_if<std::string>(&opened))
                co_return req.url + ": " + *e;
            conn = std::move(std::get<upstream_connection>(opened));
        }
        auto e =
            conn.tls
                ? co_await exchange_on(*conn.tls, conn.lowest(), p.out, req.max_body, left())
                : co_await exchange_on(*conn.plain, conn.lowest(), p.out, req.max_body, left());
        // A kept connection the peer closed while it idled fails before any answer: once more
        // on a fresh one (the request may have arrived: the pool serves questions, which are
        // safe to ask twice).
        if (reused && e.ec && !e.answered_some && e.ec != beast::error::timeout)
            continue;
        if (e.ec == beast::error::timeout)
            co_return req.url + " did not answer within " + std::to_string(req.timeout.count()) +
                " ms";
        if (e.ec == http::error::body_limit)
            co_return req.url + " answered more than " + std::to_string(req.max_body) + " bytes";
        if (e.ec)
            co_return req.url + ": " + e.ec.message();
        if (pool && e.keep)
            pool->give(p.origin, std::move(conn));
        co_return std::move(e.answer);
    }
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
