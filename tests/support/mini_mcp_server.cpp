#include "tests/support/mini_mcp_server.hpp"

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <mutex>
#include <set>
#include <string>

namespace gate::test_support {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;

namespace {

std::atomic<unsigned long> next_session{1};
std::mutex sessions_mutex;
std::set<std::string> live_sessions;

bool session_known(std::string_view id) {
    std::lock_guard lock(sessions_mutex);
    return live_sessions.contains(std::string(id));
}

json::value answer(const json::object& req) {
    auto method = req.at("method").as_string();
    json::object result;
    if (method == "initialize") {
        result = {{"protocolVersion", "2025-11-25"},
                  {"capabilities", {{"tools", json::object{}}}},
                  {"serverInfo", {{"name", "fast-upstream"}, {"version", "1"}}}};
    } else if (method == "tools/list") {
        result = {
            {"tools",
             {{{"name", "echo"},
               {"description", "echoes its message"},
               {"inputSchema",
                {{"type", "object"}, {"properties", {{"message", {{"type", "string"}}}}}}}}}}};
    } else if (method == "tools/call") {
        std::string text = "Echo: ";
        if (auto* p = req.if_contains("params"))
            if (auto* a = p->as_object().if_contains("arguments"))
                if (auto* m = a->as_object().if_contains("message"); m && m->is_string())
                    text += m->as_string();
        result = {{"content", {{{"type", "text"}, {"text", text}}}}};
    } else if (method != "ping") {
        return {{"jsonrpc", "2.0"},
                {"id", req.at("id")},
                {"error", {{"code", -32601}, {"message", "method not found"}}}};
    }
    return {{"jsonrpc", "2.0"}, {"id", req.at("id")}, {"result", std::move(result)}};
}

asio::awaitable<void> serve(tcp::socket socket, request_observer observe) {
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buf;
    for (;;) {
        http::request<http::string_body> req;
        boost::system::error_code ec;
        co_await http::async_read(stream, buf, req, asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            co_return;
        http::response<http::string_body> res{http::status::ok, req.version()};
        if (req.method() == http::verb::delete_) {
            res.result(http::status::ok);
        } else {
            auto v = json::parse(req.body(), ec);
            if (observe && !ec && v.is_object()) {
                seen_request seen;
                if (auto* m = v.as_object().if_contains("method"); m && m->is_string())
                    seen.method = m->as_string();
                seen.traceparent = std::string(req["traceparent"]);
                seen.session_id = std::string(req["Mcp-Session-Id"]);
                observe(seen);
            }
            auto session = req["Mcp-Session-Id"];
            if (ec || !v.is_object()) {
                res.result(http::status::bad_request);
            } else if (!session.empty() && !session_known(session)) {
                res.result(http::status::not_found); // a session from before a "restart"
            } else if (!v.as_object().contains("id")) {
                res.result(http::status::accepted);
            } else {
                auto& obj = v.as_object();
                if (obj.at("method") == "initialize") {
                    auto id = "s" + std::to_string(next_session++);
                    {
                        std::lock_guard lock(sessions_mutex);
                        live_sessions.insert(id);
                    }
                    res.set("Mcp-Session-Id", id);
                }
                res.set(http::field::content_type, "application/json");
                res.body() = json::serialize(answer(obj));
            }
        }
        res.keep_alive(req.keep_alive());
        res.prepare_payload();
        co_await http::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
        if (ec || !res.keep_alive())
            co_return;
    }
}

} // namespace

asio::awaitable<void> serve_mini_mcp(tcp::acceptor& acc, request_observer observe) {
    for (;;) {
        auto s = co_await acc.async_accept(asio::use_awaitable);
        s.set_option(tcp::no_delay(true));
        asio::co_spawn(acc.get_executor(), serve(std::move(s), observe), asio::detached);
    }
}

void forget_sessions() {
    std::lock_guard lock(sessions_mutex);
    live_sessions.clear();
}

} // namespace gate::test_support
