// The listener's defenses against hostile connections (docs/security.md), on a real io_context
// with real sockets and small limits: a trickled header is answered 408, an idle kept-alive
// connection is closed, an oversized header is answered 431, connections over the cap are
// answered 503, and a well-behaved request is served while others stall.
#include "transport/http/http_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>
#include <vector>

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using gate::transport::connection_limits;
using gate::transport::http_reply;
using gate::transport::http_request;
using gate::transport::http_server;

namespace {

struct ok_handler final : gate::transport::http_handler {
    std::optional<http_reply> admit(const http_request&, time_point) override {
        return std::nullopt;
    }
    asio::awaitable<std::optional<http_reply>> respond(http_request&, boost::beast::tcp_stream&,
                                                       const boost::asio::ip::address& peer,
                                                       time_point) override {
        peers.push_back(peer);
        co_return http_reply::text(boost::beast::http::status::ok, "ok");
    }
    std::vector<boost::asio::ip::address> peers; // each request's, in order
};

struct fixture {
    asio::io_context io;
    ok_handler handler;
    http_server server;
    std::uint16_t port;

    explicit fixture(connection_limits limits)
        : server(io, handler, 1024, "test", limits), port(server.listen("127.0.0.1", 0)) {}

    // Runs `body` as a client coroutine, then stops the server; returns when all is done.
    template <class Body> void run(Body body) {
        asio::co_spawn(
            io,
            [this, body]() -> asio::awaitable<void> {
                co_await body();
                server.stop();
            },
            [](std::exception_ptr e) {
                if (e)
                    std::rethrow_exception(e);
            });
        io.run();
    }

    asio::awaitable<tcp::socket> connect() {
        tcp::socket s(io);
        co_await s.async_connect({asio::ip::make_address("127.0.0.1"), port}, asio::use_awaitable);
        co_return s;
    }
};

// Everything the server sends until it closes.
asio::awaitable<std::string> read_to_end(tcp::socket& s) {
    std::string out;
    char chunk[4096];
    boost::system::error_code ec;
    for (;;) {
        auto n = co_await s.async_read_some(asio::buffer(chunk),
                                            asio::redirect_error(asio::use_awaitable, ec));
        out.append(chunk, n);
        if (ec)
            co_return out;
    }
}

asio::awaitable<void> send(tcp::socket& s, std::string_view text) {
    co_await asio::async_write(s, asio::buffer(text), asio::use_awaitable);
}

constexpr std::string_view get_request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

connection_limits small() {
    connection_limits l;
    l.header_timeout = 150ms;
    l.idle_timeout = 300ms;
    l.max_header_bytes = 2048;
    l.max_connections = 4;
    return l;
}

} // namespace

TEST(HttpServerLimits, ATrickledHeaderIsAnswered408) {
    fixture f(small());
    f.run([&]() -> asio::awaitable<void> {
        auto s = co_await f.connect();
        auto start = std::chrono::steady_clock::now();
        co_await send(s, "GET / HT");
        auto answer = co_await read_to_end(s);
        EXPECT_TRUE(answer.starts_with("HTTP/1.1 408 ")) << answer;
        EXPECT_NE(answer.find("150 ms"), std::string::npos) << answer;
        EXPECT_GE(std::chrono::steady_clock::now() - start, 150ms);
    });
}

TEST(HttpServerLimits, ASilentNewConnectionAndAnIdleKeptAliveOneAreClosed) {
    fixture f(small());
    f.run([&]() -> asio::awaitable<void> {
        auto silent = co_await f.connect();
        EXPECT_EQ(co_await read_to_end(silent), "") << "closed without an answer";

        auto s = co_await f.connect();
        co_await send(s, get_request);
        auto start = std::chrono::steady_clock::now();
        auto answer = co_await read_to_end(s); // the answer, then the close after idling
        EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 ")) << answer;
        EXPECT_EQ(answer.find("HTTP/1.1", 1), std::string::npos) << "one answer only";
        EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
    });
}

// The peer is read once per connection and handed to every request on it: each of two
// kept-alive requests sees the client's address.
TEST(HttpServerLimits, EveryRequestOfAConnectionKnowsItsPeer) {
    fixture f(small());
    f.run([&]() -> asio::awaitable<void> {
        auto s = co_await f.connect();
        co_await send(s, std::string(get_request) + std::string(get_request));
        auto answer = co_await read_to_end(s);
        EXPECT_NE(answer.find("HTTP/1.1 200 ", 1), std::string::npos) << "two answers";
    });
    ASSERT_EQ(f.handler.peers.size(), 2u);
    for (const auto& peer : f.handler.peers)
        EXPECT_EQ(peer, asio::ip::make_address("127.0.0.1"));
}

TEST(HttpServerLimits, AnOversizedHeaderIsAnswered431) {
    fixture f(small());
    f.run([&]() -> asio::awaitable<void> {
        auto s = co_await f.connect();
        co_await send(s,
                      "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(4096, 'a') + "\r\n\r\n");
        auto answer = co_await read_to_end(s);
        EXPECT_TRUE(answer.starts_with("HTTP/1.1 431 ")) << answer;
        EXPECT_NE(answer.find("larger than 2048 bytes"), std::string::npos);
    });
}

TEST(HttpServerLimits, ConnectionsOverTheCapAreAnswered503AndOthersAreServed) {
    auto limits = small();
    limits.header_timeout = 5s; // the stalled connections outlive the test's exchanges
    fixture f(limits);
    f.run([&]() -> asio::awaitable<void> {
        std::vector<tcp::socket> stalled;
        for (int i = 0; i < 3; ++i) {
            stalled.push_back(co_await f.connect());
            co_await send(stalled.back(), "GET / HT");
        }
        // A well-behaved request is served while three connections stall.
        auto good = co_await f.connect();
        co_await send(good, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        auto served = co_await read_to_end(good);
        EXPECT_TRUE(served.starts_with("HTTP/1.1 200 ")) << served;

        stalled.push_back(co_await f.connect()); // the fourth: at the cap
        co_await send(stalled.back(), "GET / HT");
        auto over = co_await f.connect();
        co_await send(over, get_request);
        auto refused = co_await read_to_end(over);
        EXPECT_TRUE(refused.starts_with("HTTP/1.1 503 ")) << refused;
        EXPECT_NE(refused.find("Retry-After: 1"), std::string::npos);
        EXPECT_NE(refused.find("at most 4"), std::string::npos);
        EXPECT_EQ(f.server.connections(), 4u);

        // One stalled client leaves: its place is free again.
        stalled.front().close();
        stalled.erase(stalled.begin());
        asio::steady_timer settle(f.io);
        while (f.server.connections() == 4) {
            settle.expires_after(1ms); // yields to the server's coroutine: no fixed wait
            co_await settle.async_wait(asio::use_awaitable);
        }
        auto again = co_await f.connect();
        co_await send(again, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        auto answer = co_await read_to_end(again);
        EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 ")) << answer;
        for (auto& s : stalled)
            s.close();
    });
}

TEST(HttpServerLimits, TheDefaultCapFollowsTheDescriptorLimit) {
    auto cap = gate::transport::default_max_connections();
    EXPECT_GE(cap, 16u);
    EXPECT_LE(cap, 16384u);
}
