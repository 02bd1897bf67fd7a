// A decision service for the decision-hook benchmark (simulations/bench_auth.sh, mode hook;
// docs/decision-hook.md): plain HTTP/1.1 on 127.0.0.1, connections kept alive, one thread,
// every question answered {"decision":"allow"} with as little work as Beast allows. It exists
// so that what gate adds for a hook can be set beside the hook's own round trip, measured by
// the same program as a client:
//
//   bench_decider                                      serve; prints "listening <port>", then
//                                                      "first <body>" for the first question;
//                                                      on SIGUSR1 (and before it ends on
//                                                      SIGTERM or SIGINT) prints
//                                                      "connections <n> questions <m>"
//   bench_decider ask <port> <connections> <seconds> [body-file]
//                                                      <connections> clients, each on its own
//                                                      kept connection, asking back to back;
//                                                      prints one JSON line: connections,
//                                                      questions, perSec, p50Ms, p99Ms
//
// The body asked defaults to a description of the benchmark's call as gate posts it; with a
// body file (the "first" line the server printed) it is the very question gate asked.
#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr std::string_view default_question =
    R"({"version":1,"stage":"call","principal":{"issuer":"http://127.0.0.1:1","subject":)"
    R"("bench-user","groups":["bench"],"scopes":[]},"tenant":null,"method":"tools/call",)"
    R"("name":"echo","upstream":"bench","upstreamName":"echo","rule":"bench"})";

struct counts {
    long long connections = 0;
    long long questions = 0;
    bool first_printed = false;
};

asio::awaitable<void> answer(tcp::socket socket, counts& c) {
    ++c.connections;
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer;
    http::response<http::string_body> res{http::status::ok, 11};
    res.set(http::field::content_type, "application/json");
    res.body() = R"({"decision":"allow"})";
    res.prepare_payload();
    beast::error_code ec;
    for (;;) {
        http::request<http::string_body> req;
        co_await http::async_read(stream, buffer, req,
                                  asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            co_return;
        ++c.questions;
        if (!c.first_printed) {
            c.first_printed = true;
            std::printf("first %s\n", req.body().c_str());
            std::fflush(stdout);
        }
        res.keep_alive(req.keep_alive());
        co_await http::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
        if (ec || !req.keep_alive())
            co_return;
    }
}

asio::awaitable<void> listen(tcp::acceptor& acceptor, counts& c) {
    for (;;) {
        auto socket = co_await acceptor.async_accept(asio::use_awaitable);
        socket.set_option(tcp::no_delay(true));
        asio::co_spawn(acceptor.get_executor(), answer(std::move(socket), c), asio::detached);
    }
}

int serve() {
    asio::io_context io(1);
    tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
    std::printf("listening %u\n", acceptor.local_endpoint().port());
    std::fflush(stdout);
    counts c;
    asio::signal_set signals(io, SIGTERM, SIGINT, SIGUSR1);
    std::function<void(const beast::error_code&, int)> said = [&](const beast::error_code&,
                                                                  int number) {
        std::printf("connections %lld questions %lld\n", c.connections, c.questions);
        std::fflush(stdout);
        if (number == SIGUSR1)
            signals.async_wait(said);
        else
            io.stop();
    };
    signals.async_wait(said);
    asio::co_spawn(io, listen(acceptor, c), asio::detached);
    io.run();
    return 0;
}

struct asked {
    std::vector<double> latencies_ms;
    long long failures = 0;
};

asio::awaitable<void> ask_back_to_back(unsigned short port, const std::string& body,
                                       clock_type::time_point end, asked& out) {
    auto ex = co_await asio::this_coro::executor;
    beast::tcp_stream stream(ex);
    co_await stream.async_connect(tcp::endpoint{asio::ip::make_address("127.0.0.1"), port},
                                  asio::use_awaitable);
    stream.socket().set_option(tcp::no_delay(true));
    // The fields gate's http_fetch writes, so the service reads what it reads from gate.
    http::request<http::string_body> req{http::verb::post, "/decide", 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
    req.set(http::field::user_agent, "gate/bench");
    req.set(http::field::accept, "application/json");
    req.set(http::field::content_type, "application/json");
    req.body() = body;
    req.prepare_payload();
    beast::flat_buffer buffer;
    while (clock_type::now() < end) {
        auto t0 = clock_type::now();
        co_await http::async_write(stream, req, asio::use_awaitable);
        http::response<http::string_body> res;
        co_await http::async_read(stream, buffer, res, asio::use_awaitable);
        auto ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
        if (res.result() != http::status::ok || res.body().find("allow") == std::string::npos)
            ++out.failures;
        else
            out.latencies_ms.push_back(ms);
    }
}

int ask(unsigned short port, int connections, double seconds, std::string body) {
    asio::io_context io(1);
    asked out;
    auto end = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                       std::chrono::duration<double>(seconds));
    for (int i = 0; i < connections; ++i)
        asio::co_spawn(io, ask_back_to_back(port, body, end, out), [&](std::exception_ptr e) {
            if (e)
                ++out.failures;
        });
    io.run();
    auto& l = out.latencies_ms;
    std::sort(l.begin(), l.end());
    auto pct = [&](double p) {
        return l.empty() ? 0.0 : l[std::min(l.size() - 1, static_cast<std::size_t>(p * l.size()))];
    };
    std::printf(R"({"connections":%d,"questions":%zu,"perSec":%.0f,"p50Ms":%.3f,"p99Ms":%.3f,)"
                R"("failures":%lld})"
                "\n",
                connections, l.size(), static_cast<double>(l.size()) / seconds, pct(0.50),
                pct(0.99), out.failures);
    return out.failures > 0 ? 1 : 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 1)
        return serve();
    if ((argc == 5 || argc == 6) && std::string_view(argv[1]) == "ask") {
        std::string body(default_question);
        if (argc == 6) {
            std::ifstream in(argv[5]);
            body.assign(std::istreambuf_iterator<char>(in), {});
            while (!body.empty() && (body.back() == '\n' || body.back() == '\r'))
                body.pop_back();
        }
        return ask(static_cast<unsigned short>(std::stoi(argv[2])), std::stoi(argv[3]),
                   std::stod(argv[4]), std::move(body));
    }
    std::fprintf(stderr, "usage: bench_decider\n"
                         "       bench_decider ask <port> <connections> <seconds> [body-file]\n");
    return 2;
}
