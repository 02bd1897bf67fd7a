// A scripted upstream for the upstream client's unit tests: an HTTP/1.1 server on 127.0.0.1,
// port 0, on the test's own io_context, whose every answer the test writes (a handler per
// request), and which records what reached it: each request (its verb, JSON-RPC method,
// session header, whole head and body), the connections accepted, and the connections the
// client closed. Also: running a coroutine of the client on the io_context to its end.
#pragma once

#include "config/model.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gate::test {

namespace loopback_detail {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;
} // namespace loopback_detail

// One request as the upstream saw it.
struct seen {
    std::string verb;   // POST, GET, DELETE
    std::string method; // the JSON-RPC method, when the body has one
    std::string session;
    std::string body;
    boost::beast::http::fields head;
    boost::json::value id; // the JSON-RPC id, when the body has one
};

// What the upstream does with a request.
struct reply {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    // An event stream: each entry one event's data, then the stream ends.
    std::optional<std::vector<std::string>> events;
    bool hang = false;  // never answer (the connection stays open until the client closes it)
    bool close = false; // close the connection without an answer

    static reply json(std::string body, int status = 200) {
        reply r;
        r.status = status;
        r.body = std::move(body);
        return r;
    }
    static reply status_only(int status) {
        reply r;
        r.status = status;
        r.content_type.clear();
        return r;
    }
    // The JSON-RPC result `result` for request `id`.
    static reply result(const boost::json::value& id, const boost::json::value& result) {
        return json(boost::json::serialize(
            boost::json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}));
    }
    reply& with(std::string name, std::string value) {
        headers.emplace_back(std::move(name), std::move(value));
        return *this;
    }
};

class loopback_upstream {
public:
    using handler = std::function<reply(const seen&)>;

    explicit loopback_upstream(boost::asio::io_context& io)
        : io_(io), acceptor_(io, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
        boost::asio::co_spawn(io_, accept(), boost::asio::detached);
    }
    ~loopback_upstream() {
        boost::system::error_code ignored;
        acceptor_.close(ignored);
    }

    std::string url() const {
        return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()) + "/mcp";
    }
    // Answers each request; by default an MCP server with sessions ("s1", "s2", ...) that
    // answers every request with an empty result.
    handler on;
    std::vector<seen> requests;
    int connections = 0;      // accepted
    int closed_by_client = 0; // connections whose client went away while one was open
    std::vector<std::shared_ptr<loopback_detail::tcp::socket>> open; // to close from a test

    // The requests with JSON-RPC method `m`.
    std::size_t count(std::string_view m) const {
        std::size_t n = 0;
        for (const auto& r : requests)
            n += r.method == m;
        return n;
    }
    // Closes every connection it holds open (a restart, an idle cut).
    void drop_connections() {
        for (auto& s : open) {
            boost::system::error_code ignored;
            s->close(ignored);
        }
        open.clear();
    }
    // Dies: its connections closed, and a new one refused (nothing listens on its port).
    void stop() {
        boost::system::error_code ignored;
        acceptor_.close(ignored);
        drop_connections();
    }

    // The answer an MCP server with sessions gives: initialize opens session "s<n>".
    reply mcp(const seen& r) {
        if (r.verb == "GET")
            return reply::status_only(405);
        if (r.verb == "DELETE" || r.id.is_null())
            return reply::status_only(r.verb == "DELETE" ? 200 : 202);
        if (r.method == "initialize")
            return reply::result(r.id, {{"protocolVersion", "2025-11-25"},
                                        {"capabilities", boost::json::object{}},
                                        {"serverInfo", {{"name", "loopback"}, {"version", "1"}}}})
                .with("Mcp-Session-Id", "s" + std::to_string(++sessions_));
        return reply::result(r.id, boost::json::object{});
    }

private:
    boost::asio::awaitable<void> accept() {
        using namespace loopback_detail;
        for (;;) {
            boost::system::error_code ec;
            auto socket = std::make_shared<tcp::socket>(
                co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec)));
            if (ec)
                co_return;
            ++connections;
            open.push_back(socket);
            asio::co_spawn(io_, serve(socket), asio::detached);
        }
    }

    boost::asio::awaitable<void> serve(std::shared_ptr<loopback_detail::tcp::socket> socket) {
        using namespace loopback_detail;
        beast::flat_buffer buf;
        for (;;) {
            http::request<http::string_body> req;
            boost::system::error_code ec;
            co_await http::async_read(*socket, buf, req,
                                      asio::redirect_error(asio::use_awaitable, ec));
            if (ec) {
                if (ec == http::error::end_of_stream || ec == asio::error::connection_reset ||
                    ec == asio::error::eof)
                    ++closed_by_client;
                co_return;
            }
            seen r;
            r.verb = std::string(req.method_string());
            r.session = std::string(req["Mcp-Session-Id"]);
            r.body = req.body();
            r.head = req.base();
            boost::system::error_code jec;
            auto v = json::parse(r.body, jec);
            if (!jec && v.is_object()) {
                if (auto* m = v.as_object().if_contains("method"); m && m->is_string())
                    r.method = std::string(m->get_string());
                if (auto* id = v.as_object().if_contains("id"))
                    r.id = *id;
            }
            requests.push_back(r);
            auto a = on ? on(r) : mcp(r);
            if (a.close) {
                socket->close(ec);
                co_return;
            }
            if (a.hang) {
                // Read on: the only way out is the client closing the connection.
                char byte;
                co_await socket->async_read_some(asio::buffer(&byte, 1),
                                                 asio::redirect_error(asio::use_awaitable, ec));
                ++closed_by_client;
                co_return;
            }
            co_await write(*socket, req.version(), a, ec);
            if (ec)
                co_return;
        }
    }

    static boost::asio::awaitable<void> write(loopback_detail::tcp::socket& socket,
                                              unsigned version, const reply& a,
                                              boost::system::error_code& ec) {
        using namespace loopback_detail;
        http::response<http::string_body> res{static_cast<http::status>(a.status), version};
        if (!a.content_type.empty())
            res.set(http::field::content_type,
                    a.events ? std::string("text/event-stream") : a.content_type);
        for (const auto& [name, value] : a.headers)
            res.set(name, value);
        if (a.events) {
            for (const auto& e : *a.events)
                res.body() += "data: " + e + "\n\n";
        } else {
            res.body() = a.body;
        }
        res.keep_alive(true);
        res.prepare_payload();
        co_await http::async_write(socket, res, asio::redirect_error(asio::use_awaitable, ec));
    }

    boost::asio::io_context& io_;
    loopback_detail::tcp::acceptor acceptor_;
    int sessions_ = 0;
};

// Runs `work` on `io` until it ends (at most 10 s: a test that hangs fails instead).
template <class T> T run(boost::asio::io_context& io, boost::asio::awaitable<T> work) {
    std::optional<T> out;
    std::exception_ptr failed;
    bool done = false;
    boost::asio::co_spawn(
        io, [&]() -> boost::asio::awaitable<void> { out.emplace(co_await std::move(work)); },
        [&](std::exception_ptr e) {
            failed = e;
            done = true;
        });
    io.restart();
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done && std::chrono::steady_clock::now() < until)
        io.run_one_until(until);
    if (failed)
        std::rethrow_exception(failed);
    if (!done)
        throw std::runtime_error("the coroutine did not end within 10 s");
    return std::move(*out);
}

inline void run(boost::asio::io_context& io, boost::asio::awaitable<void> work) {
    run(io, [](boost::asio::awaitable<void> w) -> boost::asio::awaitable<bool> {
        co_await std::move(w);
        co_return true;
    }(std::move(work)));
}

// Runs what is ready on `io` (handlers posted, spawned coroutines up to their next wait).
inline void settle(boost::asio::io_context& io) {
    io.restart();
    io.poll();
}

// Runs `io` until `done()` holds (at most 10 s); whether it does.
template <class Done> bool run_until(boost::asio::io_context& io, Done done) {
    io.restart();
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < until)
        io.run_one_until(until);
    return done();
}

// An upstream entry for `url` with short timeouts.
inline config::upstream upstream_at(const std::string& url, std::string id = "u") {
    config::upstream u;
    u.id = std::move(id);
    u.urls = {url};
    u.timeouts.connect_ms = 2000;
    u.timeouts.request_ms = 5000;
    return u;
}

} // namespace gate::test
