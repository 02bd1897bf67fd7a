// Several io threads behind one listener (transport/http/http_server.hpp, join): each new
// connection goes to the next thread in turn, a request whose handler names another thread
// moves its connection there with what was read of it (a pipelined request behind it too, a
// body read whole), and the connection bound counts every thread's connections together.
// Real sockets, each server on an io_context run by a thread of its own.
#include "transport/http/http_server.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <gtest/gtest.h>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using gate::transport::http_reply;
using gate::transport::http_request;
using gate::transport::http_server;

namespace {

// Answers with its own index and what it read; routes by X-Owner on the header and by a body
// that starts "owner=<k>".
struct routing_handler final : gate::transport::http_handler {
    explicit routing_handler(std::size_t index) : index(index) {}
    std::size_t index;
    std::optional<http_reply> admit(const http_request&, time_point) override {
        return std::nullopt;
    }
    std::optional<std::size_t> owner(const http_request& req, bool body_read) override {
        if (!body_read)
            if (auto o = gate::transport::header(req, "X-Owner"))
                return std::stoul(std::string(*o));
        if (body_read && req.body().starts_with("owner="))
            return std::stoul(req.body().substr(6, 1));
        return std::nullopt;
    }
    asio::awaitable<std::optional<http_reply>> respond(http_request& req, boost::beast::tcp_stream&,
                                                       const asio::ip::address&,
                                                       time_point) override {
        co_return http_reply::text(http::status::ok, std::to_string(index) + ":" +
                                                         std::string(req.target()) + ":" +
                                                         req.body());
    }
};

struct io_thread {
    asio::io_context io{1};
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work{
        asio::make_work_guard(io)};
    std::thread thread;
    void start() {
        thread = std::thread([this] { io.run(); });
    }
    void stop() {
        work.reset();
        io.stop();
        if (thread.joinable())
            thread.join();
    }
};

struct group_fixture {
    std::vector<std::unique_ptr<io_thread>> threads;
    std::vector<std::unique_ptr<routing_handler>> handlers;
    std::vector<std::unique_ptr<http_server>> servers;
    std::uint16_t port = 0;

    explicit group_fixture(std::size_t n, gate::transport::connection_limits limits = {}) {
        auto members = std::make_shared<http_server::group>();
        for (std::size_t i = 0; i < n; ++i) {
            threads.push_back(std::make_unique<io_thread>());
            handlers.push_back(std::make_unique<routing_handler>(i));
            servers.push_back(
                std::make_unique<http_server>(threads[i]->io, *handlers[i], 1024, "test", limits));
            members->push_back(servers[i].get());
        }
        for (std::size_t i = 0; i < n; ++i)
            servers[i]->join(members, i);
        port = servers[0]->listen("127.0.0.1", 0);
        for (auto& t : threads)
            t->start();
    }
    ~group_fixture() {
        for (auto& s : servers)
            s->stop();
        for (auto& t : threads)
            t->stop();
    }
};

struct client {
    asio::io_context io;
    tcp::socket socket{io};
    boost::beast::flat_buffer buf;
    explicit client(std::uint16_t port) {
        socket.connect({asio::ip::make_address("127.0.0.1"), port});
    }
    void send(const std::string& wire) { asio::write(socket, asio::buffer(wire)); }
    std::string answer() {
        http::response<http::string_body> res;
        http::read(socket, buf, res);
        return res.body();
    }
    std::string get(const std::string& target, const std::string& extra = "") {
        send("GET " + target + " HTTP/1.1\r\nHost: h\r\n" + extra + "\r\n");
        return answer();
    }
};

} // namespace

TEST(HttpServerGroup, EachNewConnectionGoesToTheNextThreadInTurn) {
    group_fixture g(3);
    std::vector<std::string> seen;
    for (int i = 0; i < 6; ++i) {
        client c(g.port);
        seen.push_back(c.get("/a").substr(0, 1));
    }
    EXPECT_EQ(seen, (std::vector<std::string>{"0", "1", "2", "0", "1", "2"}));
}

TEST(HttpServerGroup, ARequestOfAnotherThreadMovesItsConnectionThereForGood) {
    group_fixture g(2);
    client c(g.port); // the first connection: thread 0's
    EXPECT_EQ(c.get("/here"), "0:/here:");
    EXPECT_EQ(c.get("/moved", "X-Owner: 1\r\n"), "1:/moved:");
    // The connection is thread 1's now: the next request is answered there unasked.
    EXPECT_EQ(c.get("/after"), "1:/after:");
    // A request naming its own thread, or none there is, stays.
    EXPECT_EQ(c.get("/own", "X-Owner: 1\r\n"), "1:/own:");
    EXPECT_EQ(c.get("/none", "X-Owner: 7\r\n"), "1:/none:");
}

TEST(HttpServerGroup, WhatFollowedTheRequestMovesWithIt) {
    group_fixture g(2);
    client c(g.port);
    // Two requests in one write: the second was in the buffer when the first moved.
    c.send("POST /one HTTP/1.1\r\nHost: h\r\nX-Owner: 1\r\nContent-Length: 3\r\n\r\nabc"
           "GET /two HTTP/1.1\r\nHost: h\r\n\r\n");
    EXPECT_EQ(c.answer(), "1:/one:abc");
    EXPECT_EQ(c.answer(), "1:/two:");
}

TEST(HttpServerGroup, ABodyThatNamesAnotherThreadGoesThereWholeEvenChunked) {
    group_fixture g(2);
    client c(g.port);
    c.send("POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nowner=1;xyz");
    EXPECT_EQ(c.answer(), "1:/b:owner=1;xyz");
    client d(g.port); // thread 1's
    d.send("POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
           "7\r\nowner=0\r\n3\r\n;ok\r\n0\r\n\r\n");
    EXPECT_EQ(d.answer(), "0:/c:owner=0;ok");
    EXPECT_EQ(d.get("/next"), "0:/next:");
}

TEST(HttpServerGroup, TheConnectionBoundCountsEveryThreadsConnections) {
    gate::transport::connection_limits limits;
    limits.max_connections = 2;
    group_fixture g(2, limits);
    client a(g.port), b(g.port);
    EXPECT_EQ(a.get("/a"), "0:/a:");
    EXPECT_EQ(b.get("/b"), "1:/b:");
    EXPECT_EQ(g.servers[0]->connections(), 2u);
    EXPECT_EQ(g.servers[1]->connections(), 2u);
    // The third is refused though each thread holds one.
    client c(g.port);
    c.send("GET /c HTTP/1.1\r\nHost: h\r\n\r\n");
    http::response<http::string_body> res;
    http::read(c.socket, c.buf, res);
    EXPECT_EQ(res.result(), http::status::service_unavailable);
}
