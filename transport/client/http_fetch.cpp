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

} // namespace

asio::awaitable<std::variant<fetch_answer, std::string>>
http_fetch(asio::any_io_executor ex, fetch_request req, std::shared_ptr<asio::ssl::context> tls,
           fetch_pool* pool) {
    auto u = boost::urls::parse_uri(req.url);
    if (!u || (u->scheme() != "http" && u->scheme() != "https") || u->host().empty())
        co_return req.url + " is not an http(s) URL";
    bool secure = u->scheme() == "https";
    std::string host = u->host();
    std::string port = u->has_port() ? std::string(u->port()) : (secure ? "443" : "80");
    std::string target = u->encoded_target().empty() ? "/" : std::string(u->encoded_target());
    // Written before any connection opens: a field gate refuses to write fails the fetch with
    // nothing sent (the name is reported, never the value: it may be a secret).
    http::request<http::string_body> out{req.method == "POST" ? http::verb::post : http::verb::get,
                                         target, 11};
    out.set(http::field::host, u->has_port() ? host + ":" + port : host);
    out.set(http::field::user_agent, "gate/" + std::string(gate_version));
    out.set(http::field::accept, "application/json");
    if (!pool)
        out.set(http::field::connection, "close");
    for (const auto& [name, value] : req.headers)
        if (!set_header(out, name, value))
            co_return "gate refused to send the header " +
                (header_name_valid(name) ? name : std::string("(an invalid name)")) + " to " +
                req.url + ": it holds a control character";
    if (!req.body.empty() || req.method == "POST") {
        if (!set_header(out, http::field::content_type, req.content_type))
            co_return "gate refused to send the Content-Type to " + req.url +
                ": it holds a control character";
        out.body() = std::move(req.body);
        out.prepare_payload();
    }
    auto deadline = clock::now() + req.timeout;
    auto left = [&] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    };
    std::string origin = std::string(secure ? "https://" : "http://") + host + ":" + port;
    if (secure && !tls)
        tls = make_client_tls_context();
    for (bool first = true;; first = false) {
        auto kept = pool && first ? pool->take(origin) : std::nullopt;
        bool reused = kept.has_value();
        upstream_connection conn;
        if (reused) {
            conn = std::move(*kept);
        } else {
            auto found = co_await resolve_host(ex, host, port);
            if (auto* why = std::get_if<std::string>(&found))
                co_return "cannot resolve " + host + " for " + req.url + ": " + *why;
            auto opened = co_await open_upstream_connection(ex, std::get<0>(found), host,
                                                            secure ? tls.get() : nullptr, left());
            if (auto* e = std::get_if<std::string>(&opened))
                co_return req.url + ": " + *e;
            conn = std::move(std::get<upstream_connection>(opened));
        }
        boost::system::error_code ec;
        fetch_answer answer;
        bool answered_some = false, keep = false;
        auto exchange = [&](auto& stream) -> asio::awaitable<void> {
            conn.lowest().expires_after(left());
            co_await http::async_write(stream, out, asio::redirect_error(asio::use_awaitable, ec));
            if (ec)
                co_return;
            beast::flat_buffer buf;
            http::response_parser<http::string_body> parser;
            parser.body_limit(req.max_body);
            co_await http::async_read(stream, buf, parser,
                                      asio::redirect_error(asio::use_awaitable, ec));
            answered_some = parser.got_some();
            if (ec)
                co_return;
            keep = parser.get().keep_alive() && buf.size() == 0;
            answer = answer_of(parser.release());
        };
        if (conn.tls)
            co_await exchange(*conn.tls);
        else
            co_await exchange(*conn.plain);
        // A kept connection the peer closed while it idled fails before any answer: once more
        // on a fresh one (the request may have arrived: the pool serves questions, which are
        // safe to ask twice).
        if (reused && ec && !answered_some && ec != beast::error::timeout)
            continue;
        if (ec == beast::error::timeout)
            co_return req.url + " did not answer within " + std::to_string(req.timeout.count()) +
                " ms";
        if (ec == http::error::body_limit)
            co_return req.url + " answered more than " + std::to_string(req.max_body) + " bytes";
        if (ec)
            co_return req.url + ": " + ec.message();
        if (pool && keep)
            pool->give(origin, std::move(conn));
        co_return answer;
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
    return kept_->idle.take(clock::now());
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
