// A stream stays open for server-initiated messages; comments keep intermediaries from
// timing it out. DELETE or shutdown wakes it to close.
#include "gateway/mcp/session_streams.hpp"

#include "gateway/pipeline/answers.hpp"
#include "transport/http/sse.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using clock = std::chrono::steady_clock;

asio::awaitable<std::optional<transport::http_reply>>
session_streams::get(beast::tcp_stream& stream, const transport::http_request& req,
                     const policy::caller_ref& caller, const asio::ip::address& peer) {
    auto session = header_value(req, "Mcp-Session-Id");
    std::optional<gateway_error> refused;
    if (!transport::accepts(header_value(req, "Accept"), "text/event-stream"))
        refused = gateway_error::stream_not_acceptable;
    else if (session.empty())
        refused = gateway_error::stream_session_required;
    auto wake = std::make_shared<asio::steady_timer>(stream.get_executor(),
                                                     asio::steady_timer::time_point::max());
    if (!refused && !co_await services_.known_session(session, caller, peer))
        refused = gateway_error::stream_session_unknown;
    if (!refused) {
        switch (sessions_.attach_stream(session, wake)) {
        case session_table::attach_result::attached:
            break;
        case session_table::attach_result::unknown_session:
            refused = gateway_error::stream_session_unknown;
            break;
        case session_table::attach_result::too_many_streams:
            // Each open stream holds a connection and a coroutine: one session cannot take
            // the gateway's capacity.
            refused = gateway_error::too_many_streams;
            break;
        }
    }
    if (refused)
        co_return error_reply(
            {*refused, protocol::gateway_error_text(
                           *refused, {std::to_string(session_table::max_streams_per_session)})});
    boost::system::error_code ec;
    http::response<http::empty_body> res{http::status::ok, req.version()};
    res.set(http::field::content_type, "text/event-stream");
    res.set(http::field::cache_control, "no-cache");
    res.chunked(true);
    http::response_serializer<http::empty_body> sr{res};
    stream.expires_never();
    co_await http::async_write_header(stream, sr, asio::redirect_error(asio::use_awaitable, ec));
    bridges_.listening(session, true);
    std::uint64_t event_id = 0;
    while (!ec && sessions_.contains(session) && !services_.stopping()) {
        auto pending = sessions_.take_outbox(session);
        if (pending.empty()) {
            wake->expires_after(std::chrono::seconds(15));
            boost::system::error_code wait_ec;
            co_await wake->async_wait(asio::redirect_error(asio::use_awaitable, wait_ec));
            if (!sessions_.contains(session) || services_.stopping())
                break;
            pending = sessions_.take_outbox(session);
        }
        std::string frame;
        for (const auto& m : pending)
            frame += transport::format_sse(m, std::to_string(++event_id));
        if (frame.empty())
            frame = ": keep-alive\n\n";
        // A client that stops reading must not pin the stream (and its session) forever.
        stream.expires_after(std::chrono::seconds(30));
        co_await asio::async_write(stream, http::make_chunk(asio::buffer(frame)),
                                   asio::redirect_error(asio::use_awaitable, ec));
    }
    stream.expires_after(std::chrono::seconds(5));
    if (!ec)
        co_await asio::async_write(stream, http::make_chunk_last(),
                                   asio::redirect_error(asio::use_awaitable, ec));
    bridges_.listening(session, false);
    // A listening client was connected until now: its session's idle time counts from here.
    sessions_.touch(session, clock::now());
    co_return std::nullopt;
}

asio::awaitable<transport::http_reply> session_streams::remove(const transport::http_request& req,
                                                               const policy::caller_ref& caller,
                                                               const asio::ip::address& peer) {
    auto session = header_value(req, "Mcp-Session-Id");
    if (session.empty())
        co_return error_reply(
            {gateway_error::stream_session_required,
             protocol::gateway_error_text(gateway_error::stream_session_required)});
    if (!co_await services_.known_session(session, caller, peer) || !sessions_.close(session))
        co_return error_reply(
            {gateway_error::stream_session_unknown,
             protocol::gateway_error_text(gateway_error::stream_session_unknown)});
    services_.end_everywhere(session);
    co_return transport::http_reply::empty(http::status::ok);
}

} // namespace gate::gateway
