// A loopback HTTP peer for tests of gate's outbound requests (tests/unit/http_fetch_test.cpp,
// decision_hook_client_test.cpp): it records each request whole (its head and Content-Length
// body) and answers as the test says, counting connections and their ends; and the loop that
// runs an io_context until a test's condition holds, 5 s at most, so a request that never ends
// fails its test instead of hanging it.
#pragma once

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gate::test_support {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

inline const std::string allow = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                 "Content-Length: 20\r\n\r\n{\"decision\":\"allow\"}";
inline const std::string deny = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                "Content-Length: 19\r\n\r\n{\"decision\":\"deny\"}";

// Reads whole requests (a head and its Content-Length body) and answers each with what
// `answer` says for it (nothing: it never answers); counts connections and their ends.
struct loopback_peer {
    explicit loopback_peer(asio::io_context& io) : io(io) {
        asio::co_spawn(io, accept(), asio::detached);
    }
    std::string url(std::string_view path = "/decide") const {
        return "http://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()) +
               std::string(path);
    }
    unsigned short port() const { return acceptor.local_endpoint().port(); }

    asio::io_context& io;
    tcp::acceptor acceptor{io, {asio::ip::make_address("127.0.0.1"), 0}};
    std::function<std::string(std::size_t nth)> answer = [](std::size_t) { return allow; };
    bool close_after_answer = false;
    std::vector<std::string> requests;
    std::vector<std::shared_ptr<tcp::socket>> sockets;
    int closed = 0;

private:
    asio::awaitable<void> accept() {
        for (;;) {
            auto s = std::make_shared<tcp::socket>(io);
            boost::system::error_code ec;
            co_await acceptor.async_accept(*s, asio::redirect_error(asio::use_awaitable, ec));
            if (ec)
                co_return;
            sockets.push_back(s);
            asio::co_spawn(io, serve(s), asio::detached);
        }
    }
    static std::size_t content_length(std::string_view head) {
        auto at = head.find("Content-Length: ");
        return at == std::string_view::npos ? 0 : std::stoul(std::string(head.substr(at + 16)));
    }
    asio::awaitable<void> serve(std::shared_ptr<tcp::socket> s) {
        std::string buf;
        boost::system::error_code ec;
        auto done = asio::redirect_error(asio::use_awaitable, ec);
        for (;;) {
            auto n =
                co_await asio::async_read_until(*s, asio::dynamic_buffer(buf), "\r\n\r\n", done);
            if (ec)
                break;
            auto whole = n + content_length(std::string_view(buf).substr(0, n));
            if (buf.size() < whole)
                co_await asio::async_read(*s, asio::dynamic_buffer(buf),
                                          asio::transfer_exactly(whole - buf.size()), done);
            if (ec)
                break;
            requests.push_back(buf.substr(0, whole));
            buf.erase(0, whole);
            auto reply = answer(requests.size() - 1);
            if (!reply.empty())
                co_await asio::async_write(*s, asio::buffer(reply), done);
            if (ec || close_after_answer)
                break;
        }
        s->close(ec);
        ++closed;
    }
};

inline void run_until(asio::io_context& io, const std::function<bool()>& done) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!done() && std::chrono::steady_clock::now() < until)
        io.run_one_for(until - std::chrono::steady_clock::now());
}

} // namespace gate::test_support
