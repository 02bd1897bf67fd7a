// What an upstream session has besides its requests: the long-lived event stream gate follows
// (a GET, or a 2026-07-28 subscription's POST) and the DELETE that ends it.
#include "gateway/upstream/exchange_parts.hpp"
#include "gateway/upstream/upstream_client_parts.hpp"
#include "gateway/upstream/upstream_credentials.hpp"
#include "gateway/upstream/upstream_exchange.hpp"
#include "process/version.hpp"
#include "transport/http/header_writer.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using namespace upstream::parts;

asio::awaitable<void>
upstream_exchange::send_delete(upstream_endpoint& ep, session_state state,
                               std::shared_ptr<const caller_credential> caller) {
    auto self = state_.hold();
    auto cred = co_await credentials_.line(caller.get());
    if (!std::holds_alternative<std::string>(cred))
        co_return;
    auto c = co_await connect(ep);
    auto* conn = std::get_if<transport::upstream_connection>(&c);
    if (!conn)
        co_return;
    std::string wire = "DELETE " + ep.target + " HTTP/1.1\r\n";
    transport::header_writer head(wire);
    head.field("Host", ep.authority);
    head.field("User-Agent", "gate/" + std::string(process::gate_version));
    head.field("Mcp-Session-Id", state.id);
    if (!state.protocol_version.empty())
        head.field("MCP-Protocol-Version", state.protocol_version);
    if (const auto& line = std::get<std::string>(cred); !line.empty())
        head.line(line);
    if (!head.ok()) {
        spdlog::warn("{}", refused_head(head).message);
        co_return;
    }
    wire += "Content-Length: 0\r\nConnection: close\r\n\r\n";
    conn->lowest().expires_after(std::chrono::milliseconds(state_.cfg.timeouts.request_ms));
    auto run = [&](auto& stream) -> asio::awaitable<void> {
        boost::system::error_code ec;
        co_await asio::async_write(stream, asio::buffer(wire),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            co_return;
        beast::flat_buffer buf;
        http::response<http::string_body> res;
        co_await http::async_read(stream, buf, res, asio::redirect_error(asio::use_awaitable, ec));
    };
    if (conn->tls)
        co_await run(*conn->tls);
    else
        co_await run(*conn->plain);
}

asio::awaitable<bool> upstream_exchange::follow_stream(
    transport::upstream_connection& conn, const std::string& wire, bool require_event_stream,
    std::function<void()> on_open, std::function<bool()> going,
    std::function<void(upstream_message)> on_message, std::function<void()> on_sent) {
    bool opened = false;
    auto run = [&](auto& stream) -> asio::awaitable<void> {
        boost::system::error_code ec;
        conn.lowest().expires_after(std::chrono::milliseconds(state_.cfg.timeouts.connect_ms));
        co_await asio::async_write(stream, asio::buffer(wire),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            co_return;
        if (on_sent)
            on_sent();
        beast::flat_buffer buf;
        http::response_parser<http::string_body> parser;
        parser.body_limit(boost::none);
        co_await http::async_read_header(stream, buf, parser,
                                         asio::redirect_error(asio::use_awaitable, ec));
        auto type = parser.get()[http::field::content_type];
        if (ec || parser.get().result_int() != 200 ||
            (require_event_stream && !type.starts_with("text/event-stream")))
            co_return;
        opened = true;
        on_open();
        conn.lowest().expires_never();
        transport::sse_parser sse(max_answer_bytes);
        held_share share(state_.unfinished_event_bytes);
        while (!parser.is_done() && going()) {
            auto events = co_await next_events(stream, buf, parser, sse, ec);
            if (ec)
                break;
            for (auto& ev : events) {
                boost::system::error_code jec;
                auto v = json::parse(ev.data, jec);
                if (!jec && v.is_object() && v.as_object().contains("method"))
                    on_message(upstream_message(std::move(v.as_object()), std::move(ev.data)));
            }
            // The events before it were passed on.
            if (sse.over_bound())
                spdlog::warn("upstream {}: an event on its stream is over {} bytes, gate's bound "
                             "of one message; the stream was dropped",
                             state_.cfg.id, sse.max_event());
            else if (!share.hold(sse.held(), max_answer_bytes))
                spdlog::warn("upstream {}: the unfinished events of its streams hold over {} "
                             "bytes together, gate's bound of one upstream; the stream that "
                             "went past it was dropped",
                             state_.cfg.id, max_answer_bytes);
            else
                continue;
            conn.lowest().close();
            break;
        }
    };
    if (conn.tls)
        co_await run(*conn.tls);
    else
        co_await run(*conn.plain);
    co_return opened;
}

} // namespace gate::gateway
