// The sampling round trip (upstream -> client -> upstream) with C++ peers on both sides,
// directly against an upstream and through gate, alternating in one run so both see the same
// machine state (docs/benchmarks.md). The client calls the upstream's `sample` tool; the
// call's answer turns into an event stream carrying a sampling/createMessage request; the
// client answers it with a POST of its own; the stream then carries the call's result.
// Prints one JSON line with p50/p99 of both paths and the difference of the p50s.
//
//   sampling_driver <direct-url> <gate-url> <rounds>
#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <boost/url/parse.hpp>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using clock_type = std::chrono::steady_clock;

namespace {

// One MCP session that declares sampling, with two keep-alive connections: one for calls
// (their answers stream) and one for the answers to the upstream's requests.
struct peer {
    std::string host, port, path, session;
    beast::tcp_stream calls, answers;
    peer(asio::any_io_executor ex, const std::string& url) : calls(ex), answers(ex) {
        auto u = boost::urls::parse_uri(url);
        if (!u)
            throw std::runtime_error("bad url " + url);
        host = u->host();
        port = u->has_port() ? std::string(u->port()) : "80";
        path = std::string(u->encoded_path());
    }

    http::request<http::string_body> request(std::string body) const {
        http::request<http::string_body> req{http::verb::post, path, 11};
        req.set(http::field::host, host + ":" + port);
        req.set(http::field::content_type, "application/json");
        req.set(http::field::accept, "application/json, text/event-stream");
        req.set("MCP-Protocol-Version", "2025-11-25");
        if (!session.empty())
            req.set("Mcp-Session-Id", session);
        req.body() = std::move(body);
        req.prepare_payload();
        return req;
    }

    asio::awaitable<http::response<http::string_body>> exchange(beast::tcp_stream& s,
                                                                std::string body) {
        auto req = request(std::move(body));
        co_await http::async_write(s, req, asio::use_awaitable);
        beast::flat_buffer buf;
        http::response<http::string_body> res;
        co_await http::async_read(s, buf, res, asio::use_awaitable);
        co_return res;
    }

    asio::awaitable<void> open() {
        tcp::resolver r(co_await asio::this_coro::executor);
        auto eps = co_await r.async_resolve(host, port, asio::use_awaitable);
        for (auto* s : {&calls, &answers}) {
            co_await s->async_connect(eps, asio::use_awaitable);
            s->socket().set_option(tcp::no_delay(true));
        }
        auto init = co_await exchange(
            calls,
            R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"sampling-driver","version":"1"}}})");
        session = std::string(init["Mcp-Session-Id"]);
        co_await exchange(calls, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    }

    // One round trip; throws unless the result carries the sampled text.
    asio::awaitable<void> round_trip() {
        auto req = request(
            R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample","arguments":{"message":"x"}}})");
        co_await http::async_write(calls, req, asio::use_awaitable);
        beast::flat_buffer buf;
        http::response_parser<http::string_body> parser;
        co_await http::async_read_header(calls, buf, parser, asio::use_awaitable);
        std::size_t scanned = 0;
        for (;;) {
            auto& body = parser.get().body();
            for (std::size_t end; (end = body.find("\n\n", scanned)) != std::string::npos;) {
                auto event = std::string_view(body).substr(scanned, end - scanned);
                scanned = end + 2;
                auto data = event.find("data: ");
                if (data == std::string_view::npos)
                    continue;
                auto msg = json::parse(event.substr(data + 6)).as_object();
                if (msg.contains("method")) {
                    // The upstream asks to sample: answer at once, on the other connection.
                    json::object answer{{"jsonrpc", "2.0"},
                                        {"id", msg.at("id")},
                                        {"result",
                                         {{"role", "assistant"},
                                          {"model", "driver"},
                                          {"content", {{"type", "text"}, {"text", "ok"}}}}}};
                    auto r = co_await exchange(answers, json::serialize(answer));
                    if (r.result() != http::status::accepted)
                        throw std::runtime_error("answer refused");
                    continue;
                }
                if (json::serialize(msg).find("sampled: ok") == std::string::npos)
                    throw std::runtime_error("unexpected result " + json::serialize(msg));
                if (!parser.is_done()) // the stream's end: the connection serves the next call
                    co_await http::async_read(calls, buf, parser, asio::use_awaitable);
                co_return;
            }
            if (parser.is_done())
                throw std::runtime_error("the stream ended without a result");
            co_await http::async_read_some(calls, buf, parser, asio::use_awaitable);
        }
    }
};

double pct(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[std::min(v.size() - 1, static_cast<std::size_t>(p * v.size()))];
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: sampling_driver <direct-url> <gate-url> <rounds>\n");
        return 2;
    }
    int rounds = std::stoi(argv[3]);
    asio::io_context io(1);
    std::vector<double> direct_ms, gate_ms;
    int failures = 0;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            auto ex = co_await asio::this_coro::executor;
            peer direct(ex, argv[1]), via_gate(ex, argv[2]);
            co_await direct.open();
            co_await via_gate.open();
            for (int i = 0; i < rounds + rounds / 10; ++i) {
                for (auto [p, out] : {std::pair{&direct, &direct_ms}, {&via_gate, &gate_ms}}) {
                    auto t0 = clock_type::now();
                    co_await p->round_trip();
                    if (i >= rounds / 10) // the first tenth warms up
                        out->push_back(
                            std::chrono::duration<double, std::milli>(clock_type::now() - t0)
                                .count());
                }
            }
        },
        [&](std::exception_ptr e) {
            if (!e)
                return;
            ++failures;
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& x) {
                std::fprintf(stderr, "sampling_driver: %s\n", x.what());
            }
        });
    io.run();
    auto d50 = pct(direct_ms, 0.5), g50 = pct(gate_ms, 0.5);
    std::printf(R"({"rounds":%zu,"directP50Ms":%.3f,"directP99Ms":%.3f,"gateP50Ms":%.3f,)"
                R"("gateP99Ms":%.3f,"addedP50Ms":%.3f,"failures":%d})"
                "\n",
                gate_ms.size(), d50, pct(direct_ms, 0.99), g50, pct(gate_ms, 0.99), g50 - d50,
                failures);
    return failures > 0 ? 1 : 0;
}
