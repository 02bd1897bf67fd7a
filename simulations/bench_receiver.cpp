// A webhook receiver for the gate-hooks benchmark (simulations/bench_hooks.mjs): HTTPS on
// 127.0.0.1, kept-alive connections, one thread. It exists because the benchmark's node
// receiver used a third of a 2-core machine's CPU per delivery, which a drain then lacked;
// this one answers a delivery for a fraction of that, so a drain measures gate-hooks and its
// database (docs/benchmarks.md).
//
//   bench_receiver <cert.pem> <key.pem> [--arrivals]
//
// Prints "listening <port>", then answers every request 503 until a line "accept <n>" on
// stdin; from then on it answers 204, and after n of those prints "done <unix ms of the n-th>
// <TLS connections accepted>". With --arrivals it also prints "arrival <unix µs> <event id>"
// for each delivery it accepts. EOF on stdin ends it.
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {

struct state {
    bool arrivals = false;
    bool accepting = false;
    long long wanted = 0;
    long long accepted = 0;
    long long connections = 0;
};

long long unix_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The delivery body's "event_id" member, found without parsing the rest.
std::string_view event_id(std::string_view body) {
    constexpr std::string_view key = R"("event_id":")";
    auto at = body.find(key);
    if (at == std::string_view::npos)
        return "-";
    body.remove_prefix(at + key.size());
    return body.substr(0, body.find('"'));
}

asio::awaitable<void> serve(tcp::socket socket, ssl::context& tls, state& s) {
    beast::ssl_stream<tcp::socket> stream(std::move(socket), tls);
    beast::error_code ec;
    co_await stream.async_handshake(ssl::stream_base::server,
                                    asio::redirect_error(asio::use_awaitable, ec));
    if (ec)
        co_return;
    ++s.connections;
    beast::flat_buffer buffer;
    for (;;) {
        http::request<http::string_body> req;
        co_await http::async_read(stream, buffer, req,
                                  asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            co_return;
        http::response<http::empty_body> res{s.accepting ? http::status::no_content
                                                         : http::status::service_unavailable,
                                             req.version()};
        res.keep_alive(req.keep_alive());
        res.prepare_payload(); // Content-Length: 0 on a 503, or the client reads to EOF
        if (s.accepting) {
            auto now = unix_us();
            if (s.arrivals) {
                auto id = event_id(req.body());
                std::printf("arrival %lld %.*s\n", now, static_cast<int>(id.size()), id.data());
            }
            if (++s.accepted == s.wanted)
                std::printf("done %lld %lld\n", now / 1000, s.connections);
            std::fflush(stdout);
        }
        co_await http::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
        if (ec || !req.keep_alive())
            co_return;
    }
}

asio::awaitable<void> listen(tcp::acceptor& acceptor, ssl::context& tls, state& s) {
    for (;;) {
        auto socket = co_await acceptor.async_accept(asio::use_awaitable);
        socket.set_option(tcp::no_delay(true));
        asio::co_spawn(acceptor.get_executor(), serve(std::move(socket), tls, s), asio::detached);
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3 || argc > 4 || (argc == 4 && std::string_view(argv[3]) != "--arrivals")) {
        std::fprintf(stderr, "usage: bench_receiver <cert.pem> <key.pem> [--arrivals]\n");
        return 2;
    }
    ssl::context tls(ssl::context::tls_server);
    tls.use_certificate_chain_file(argv[1]);
    tls.use_private_key_file(argv[2], ssl::context::pem);

    asio::io_context io(1);
    tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
    std::printf("listening %u\n", acceptor.local_endpoint().port());
    std::fflush(stdout);
    state s;
    s.arrivals = argc == 4;
    asio::co_spawn(io, listen(acceptor, tls, s), asio::detached);

    // Commands arrive on stdin, read on their own thread and handed to the io thread.
    std::thread commands([&] {
        std::string word;
        long long n = 0;
        while (std::cin >> word) {
            if (word == "accept" && std::cin >> n)
                asio::post(io, [&s, n] {
                    s.accepting = true;
                    s.wanted = n;
                });
        }
        asio::post(io, [&io] { io.stop(); });
    });
    io.run();
    commands.join();
}
