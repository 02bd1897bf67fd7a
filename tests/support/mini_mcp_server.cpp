#include "tests/support/mini_mcp_server.hpp"

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

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

// A `sample` call waits for the client's answer to its sampling request, which arrives as
// a POST of its own (on any connection of the session).
struct awaited_answer {
    explicit awaited_answer(asio::any_io_executor ex)
        : wake(std::move(ex), asio::steady_timer::time_point::max()) {}
    asio::steady_timer wake;
    std::optional<json::value> result;
};
std::mutex awaited_mutex;
std::unordered_map<std::string, std::shared_ptr<awaited_answer>> awaited;
std::atomic<unsigned long> next_sampling{1};

bool session_known(std::string_view id) {
    std::lock_guard lock(sessions_mutex);
    return live_sessions.contains(std::string(id));
}

std::string filler(std::size_t bytes) {
    static constexpr std::string_view line =
        "Lorem ipsum \"dolor\" sit amet, consectetur adipiscing elit.\n";
    std::string out;
    out.reserve(bytes);
    while (out.size() < bytes)
        out.append(line.substr(0, std::min(line.size(), bytes - out.size())));
    return out;
}

json::value answer(const json::object& req) {
    auto method = req.at("method").as_string();
    json::object result;
    if (method == "initialize") {
        result = {{"protocolVersion", "2025-11-25"},
                  {"capabilities", {{"tools", json::object{}}}},
                  {"serverInfo", {{"name", "fast-upstream"}, {"version", "1"}}}};
    } else if (method == "tools/list") {
        json::object schema{{"type", "object"},
                            {"properties", {{"message", {{"type", "string"}}}}}};
        result = {
            {"tools",
             {{{"name", "echo"}, {"description", "echoes its message"}, {"inputSchema", schema}},
              {{"name", "sample"},
               {"description", "asks the client to sample, answers with what it said"},
               {"inputSchema", schema}}}}};
    } else if (method == "tools/call") {
        std::string text = "Echo: ";
        if (auto* p = req.if_contains("params"))
            if (auto* a = p->as_object().if_contains("arguments"))
                if (auto* m = a->as_object().if_contains("message"); m && m->is_string()) {
                    text += m->as_string();
                    // A benchmark's large tool result: text with quotes and line breaks to
                    // escape, as a file or a page would have.
                    if (auto* n = a->as_object().if_contains("answerBytes"))
                        if (auto bytes = n->if_int64(); bytes && *bytes > 0 && *bytes <= (16 << 20))
                            text += filler(static_cast<std::size_t>(*bytes));
                }
        result = {{"content", {{{"type", "text"}, {"text", text}}}}};
    } else if (method != "ping") {
        return {{"jsonrpc", "2.0"},
                {"id", req.at("id")},
                {"error", {{"code", -32601}, {"message", "method not found"}}}};
    }
    return {{"jsonrpc", "2.0"}, {"id", req.at("id")}, {"result", std::move(result)}};
}

bool is_sample_call(const json::object& req) {
    auto* p = req.if_contains("params");
    auto* name = p && p->is_object() ? p->as_object().if_contains("name") : nullptr;
    return req.at("method") == "tools/call" && name && *name == "sample";
}

// Answers a `sample` call as an event stream: the sampling request, then (once the client
// answered it) the call's result.
asio::awaitable<boost::system::error_code> sample(beast::tcp_stream& stream, unsigned version,
                                                  const json::object& req) {
    auto id = "sampling-" + std::to_string(next_sampling++);
    auto waiting = std::make_shared<awaited_answer>(stream.get_executor());
    {
        std::lock_guard lock(awaited_mutex);
        awaited[id] = waiting;
    }
    http::response<http::empty_body> head{http::status::ok, version};
    head.set(http::field::content_type, "text/event-stream");
    head.chunked(true);
    http::response_serializer<http::empty_body> sr{head};
    boost::system::error_code ec;
    co_await http::async_write_header(stream, sr, asio::redirect_error(asio::use_awaitable, ec));
    auto event = [](const json::value& m) { return "data: " + json::serialize(m) + "\n\n"; };
    json::object ask{
        {"jsonrpc", "2.0"},
        {"id", id},
        {"method", "sampling/createMessage"},
        {"params",
         {{"messages", {{{"role", "user"}, {"content", {{"type", "text"}, {"text", "hi"}}}}}},
          {"maxTokens", 8}}}};
    if (!ec)
        co_await asio::async_write(stream, http::make_chunk(asio::buffer(event(ask))),
                                   asio::redirect_error(asio::use_awaitable, ec));
    if (!ec) {
        boost::system::error_code wait_ec; // cancelled by the answer's arrival
        waiting->wake.expires_after(std::chrono::seconds(30));
        co_await waiting->wake.async_wait(asio::redirect_error(asio::use_awaitable, wait_ec));
    }
    {
        std::lock_guard lock(awaited_mutex);
        awaited.erase(id);
    }
    std::string said = "nothing";
    if (waiting->result && waiting->result->is_object())
        if (auto* c = waiting->result->as_object().if_contains("content"); c && c->is_object())
            if (auto* t = c->as_object().if_contains("text"); t && t->is_string())
                said = std::string(t->as_string());
    json::object done{
        {"jsonrpc", "2.0"},
        {"id", req.at("id")},
        {"result", {{"content", {{{"type", "text"}, {"text", "sampled: " + said}}}}}}};
    if (!ec)
        co_await asio::async_write(stream, http::make_chunk(asio::buffer(event(done))),
                                   asio::redirect_error(asio::use_awaitable, ec));
    if (!ec)
        co_await asio::async_write(stream, http::make_chunk_last(),
                                   asio::redirect_error(asio::use_awaitable, ec));
    co_return ec;
}

// The client's answer to a sampling request: wakes the call waiting for it.
bool take_answer(const json::object& msg) {
    auto* id = msg.if_contains("id");
    if (!id || !id->is_string())
        return false;
    std::shared_ptr<awaited_answer> waiting;
    {
        std::lock_guard lock(awaited_mutex);
        auto it = awaited.find(std::string(id->as_string()));
        if (it == awaited.end())
            return false;
        waiting = it->second;
    }
    if (auto* r = msg.if_contains("result"))
        waiting->result = *r;
    asio::post(waiting->wake.get_executor(), [waiting] { waiting->wake.cancel(); });
    return true;
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
            } else if (!v.as_object().contains("method")) {
                res.result(take_answer(v.as_object()) ? http::status::accepted
                                                      : http::status::bad_request);
            } else if (!v.as_object().contains("id")) {
                res.result(http::status::accepted);
            } else if (is_sample_call(v.as_object())) {
                if (co_await sample(stream, req.version(), v.as_object()) || !req.keep_alive())
                    co_return;
                continue;
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
