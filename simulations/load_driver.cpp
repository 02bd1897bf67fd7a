// Load driver: N concurrent MCP client sessions over streamable HTTP, each on its own
// keep-alive connection, issuing tools/call back to back for a fixed time. Prints one JSON
// line: {"sessions", "calls", "seconds", "callsPerSec", "p50Ms", "p99Ms", "setupP50Ms",
// "setupP99Ms", "errors"}; the window opens once every session has been set up.
//
//   load_driver <url> <sessions> <seconds> [tool-name]
//   GATE_BENCH_ANSWER_BYTES=N   ask the echo tool for an answer N bytes longer (a large tool
//                               result: a file, a page) by an `answerBytes` argument
#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <boost/url/parse.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using clock_type = std::chrono::steady_clock;

namespace {

struct target {
    std::string host, port, path, tool;
    std::string authorization; // GATE_BENCH_AUTHORIZATION: sent with every request when set
    std::string answer_bytes;  // GATE_BENCH_ANSWER_BYTES: the answer's added length, when set
};

struct totals {
    std::vector<double> latencies_ms;
    std::vector<double> setup_ms; // initialize + notifications/initialized, per session
    std::size_t errors = 0;
};

// The measured window opens once every session is set up (a shim spawns a process per
// session, which can take far longer than the calls themselves).
struct window {
    explicit window(asio::any_io_executor ex, int sessions)
        : go(ex, asio::steady_timer::time_point::max()), waiting(sessions) {}
    asio::steady_timer go;
    int waiting;
    clock_type::duration length{};
    clock_type::time_point start, end;
    void ready() {
        if (--waiting == 0) {
            start = clock_type::now();
            end = start + length;
            go.cancel();
        }
    }
};

asio::awaitable<std::pair<http::status, std::string>> post(beast::tcp_stream& s, const target& t,
                                                           const std::string& session,
                                                           std::string body,
                                                           std::string* session_out = nullptr) {
    http::request<http::string_body> req{http::verb::post, t.path, 11};
    req.set(http::field::host, t.host + ":" + t.port);
    req.set(http::field::content_type, "application/json");
    req.set(http::field::accept, "application/json, text/event-stream");
    if (!session.empty())
        req.set("Mcp-Session-Id", session);
    if (!t.authorization.empty())
        req.set(http::field::authorization, t.authorization);
    req.body() = std::move(body);
    req.prepare_payload();
    co_await http::async_write(s, req, asio::use_awaitable);
    beast::flat_buffer buf;
    http::response<http::string_body> res;
    co_await http::async_read(s, buf, res, asio::use_awaitable);
    if (session_out)
        if (auto it = res.find("Mcp-Session-Id"); it != res.end())
            *session_out = std::string(it->value());
    co_return std::pair{res.result(), std::move(res.body())};
}

asio::awaitable<void> client(const target& t, window& w, totals& out) {
    struct announce {
        window& w;
        ~announce() { w.ready(); }
    };
    std::optional<announce> not_ready_yet(std::in_place, w);
    auto ex = co_await asio::this_coro::executor;
    tcp::resolver r(ex);
    auto eps = co_await r.async_resolve(t.host, t.port, asio::use_awaitable);
    beast::tcp_stream s(ex);
    co_await s.async_connect(eps, asio::use_awaitable);
    s.socket().set_option(tcp::no_delay(true));
    std::string session;
    auto setup_start = clock_type::now();
    co_await post(
        s, t, "",
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"1"}}})",
        &session);
    co_await post(s, t, session, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    out.setup_ms.push_back(
        std::chrono::duration<double, std::milli>(clock_type::now() - setup_start).count());
    not_ready_yet.reset();
    if (w.waiting > 0) {
        boost::system::error_code ec;
        co_await w.go.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    auto end = w.end;
    std::string body = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":")" +
                       t.tool + R"(","arguments":{"message":"hello")" +
                       (t.answer_bytes.empty() ? "" : R"(,"answerBytes":)" + t.answer_bytes) +
                       "}}}";
    while (clock_type::now() < end) {
        auto t0 = clock_type::now();
        auto [status, text] = co_await post(s, t, session, body);
        auto ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
        if (status != http::status::ok || text.find("Echo: hello") == std::string::npos)
            ++out.errors;
        else
            out.latencies_ms.push_back(ms);
    }
    // A client that is done says so, so a long run of rounds leaves no session behind.
    http::request<http::empty_body> bye{http::verb::delete_, t.path, 11};
    bye.set(http::field::host, t.host + ":" + t.port);
    bye.set("Mcp-Session-Id", session);
    if (!t.authorization.empty())
        bye.set(http::field::authorization, t.authorization);
    boost::system::error_code ec;
    co_await http::async_write(s, bye, asio::redirect_error(asio::use_awaitable, ec));
    beast::flat_buffer buf;
    http::response<http::string_body> res;
    if (!ec)
        co_await http::async_read(s, buf, res, asio::redirect_error(asio::use_awaitable, ec));
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr,
                     "usage: load_driver <url> <sessions> <seconds> [tool]\n"
                     "  GATE_BENCH_AUTHORIZATION=<header value> is sent with every request\n"
                     "  GATE_BENCH_ANSWER_BYTES=<n> asks for answers n bytes longer\n");
        return 2;
    }
    auto u = boost::urls::parse_uri(argv[1]);
    if (!u) {
        std::fprintf(stderr, "bad url\n");
        return 2;
    }
    target t{u->host(),
             u->has_port() ? std::string(u->port()) : "80",
             std::string(u->encoded_path()),
             argc > 4 ? argv[4] : "echo",
             "",
             ""};
    if (const char* a = std::getenv("GATE_BENCH_AUTHORIZATION"))
        t.authorization = a;
    if (const char* n = std::getenv("GATE_BENCH_ANSWER_BYTES"))
        t.answer_bytes = std::to_string(std::stoul(n));
    int sessions = std::stoi(argv[2]);
    double seconds = std::stod(argv[3]);
    asio::io_context io(1);
    totals out;
    // Sessions are set up first; the measured window starts after a fixed set-up allowance.
    window w(io.get_executor(), sessions);
    w.length =
        std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(seconds));
    for (int i = 0; i < sessions; ++i)
        asio::co_spawn(io, client(t, w, out), [&](std::exception_ptr e) {
            if (e)
                ++out.errors;
        });
    io.run();
    auto pct = [](std::vector<double>& v, double p) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[std::min(v.size() - 1, static_cast<std::size_t>(p * v.size()))];
    };
    auto& l = out.latencies_ms;
    auto p50 = pct(l, 0.50), p99 = pct(l, 0.99);
    auto setup50 = pct(out.setup_ms, 0.50), setup99 = pct(out.setup_ms, 0.99);
    std::printf(
        R"({"sessions":%d,"calls":%zu,"seconds":%.2f,"callsPerSec":%.0f,"p50Ms":%.3f,"p99Ms":%.3f,)"
        R"("setupP50Ms":%.3f,"setupP99Ms":%.3f,"errors":%zu})"
        "\n",
        sessions, l.size(), seconds, static_cast<double>(l.size()) / seconds, p50, p99, setup50,
        setup99, out.errors);
    return out.errors > 0 ? 1 : 0;
}
