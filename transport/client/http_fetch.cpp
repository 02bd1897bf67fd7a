#include "transport/client/http_fetch.hpp"

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
http_fetch(asio::any_io_executor ex, fetch_request req, std::shared_ptr<asio::ssl::context> tls) {
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

    boost::system::error_code ec;
    auto found = co_await resolve_host(ex, host, port);
    if (auto* why = std::get_if<std::string>(&found))
        co_return "cannot resolve " + host + " for " + req.url + ": " + *why;
    auto& resolved = std::get<0>(found);
    if (secure && !tls)
        tls = make_client_tls_context();
    auto opened =
        co_await open_upstream_connection(ex, resolved, host, secure ? tls.get() : nullptr, left());
    if (auto* e = std::get_if<std::string>(&opened))
        co_return req.url + ": " + *e;
    auto conn = std::move(std::get<upstream_connection>(opened));

    fetch_answer answer;
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
        if (ec)
            co_return;
        answer = answer_of(parser.release());
    };
    if (conn.tls)
        co_await exchange(*conn.tls);
    else
        co_await exchange(*conn.plain);
    if (ec == beast::error::timeout)
        co_return req.url + " did not answer within " + std::to_string(req.timeout.count()) + " ms";
    if (ec == http::error::body_limit)
        co_return req.url + " answered more than " + std::to_string(req.max_body) + " bytes";
    if (ec)
        co_return req.url + ": " + ec.message();
    co_return answer;
}

} // namespace gate::transport
