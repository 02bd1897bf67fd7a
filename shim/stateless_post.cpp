// gate-stdio's stateless side (MCP 2026-07-28): every such request is a POST without a
// session, served by one child that all stateless clients share (docs/shim.md, "Stateless
// clients"). The decisions are in shim/stateless_flights.hpp.
#include "protocol/json_rpc.hpp"
#include "protocol/modern_request.hpp"
#include "protocol/param_headers.hpp"
#include "shim/child_log.hpp"
#include "shim/line_splitter.hpp"
#include "shim/shim_server.hpp"
#include "shim/shim_session.hpp"
#include "transport/http/event_stream.hpp"
#include "transport/http/sse.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace gate::shim {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using transport::http_reply;
using transport::http_request;
using clock = std::chrono::steady_clock;

namespace {

constexpr auto keep_alive = std::chrono::seconds(15);

http_reply rpc_reply(http::status status, const json::value& id, int code, std::string_view text) {
    return http_reply::json(status, json::serialize(protocol::make_error(id, code, text)));
}

http_reply busy(const json::value& id, std::string text, long retry_after_s) {
    auto reply = rpc_reply(http::status::service_unavailable, id,
                           protocol::error_code::internal_error, text);
    reply.headers.emplace_back("Retry-After", std::to_string(std::max(1L, retry_after_s)));
    return reply;
}

std::string ended_text(const shim_session& s, const json::value& id) {
    return json::serialize(
        protocol::make_error(id, protocol::error_code::internal_error,
                             "the stdio server ended before answering: " + s.ended.value_or("")));
}

enum class woke { ready, hung_up, quiet };

// Waits until `q` has messages, is cut, the child ended, `at_most` passed (quiet), or the
// client hung up: its socket turns readable at EOF (a client sends nothing else while it
// waits for its answer), which the revision makes the cancellation of its request.
asio::awaitable<woke> wait(shim_session& s, client_stream& q, beast::tcp_stream& stream,
                           clock::duration at_most) {
    using namespace asio::experimental::awaitable_operators;
    if (s.outbox.has_queued(q.id) || s.ended || q.cut)
        co_return woke::ready;
    boost::system::error_code ec;
    auto r = co_await (q.sleep(at_most) ||
                       stream.socket().async_wait(asio::ip::tcp::socket::wait_read,
                                                  asio::redirect_error(asio::use_awaitable, ec)));
    if (r.index() == 1)
        co_return woke::hung_up;
    co_return s.outbox.has_queued(q.id) || s.ended || q.cut ? woke::ready : woke::quiet;
}

} // namespace

std::variant<std::shared_ptr<shim_session>, http_reply>
shim_server::shared_child(const json::value& id) {
    if (shared_ && !shared_->ended)
        return shared_;
    shared_.reset();
    if (shutting_down_)
        return busy(id, "the shim is shutting down", 5);
    auto now = clock::now();
    if (!child_starts_.take(now)) {
        auto wait_s =
            std::chrono::ceil<std::chrono::seconds>(child_starts_.next_possible(now) - now);
        spdlog::warn(
            "stateless clients: the server was started {} times within {} s; not "
            "starting it again yet",
            settings_.max_child_starts,
            std::chrono::duration_cast<std::chrono::seconds>(settings_.child_start_window).count());
        return busy(id,
                    "the stdio server was started " + std::to_string(settings_.max_child_starts) +
                        " times within " +
                        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                           settings_.child_start_window)
                                           .count()) +
                        " s; try again later",
                    static_cast<long>(wait_s.count()));
    }
    std::string error;
    auto s = start_session(error);
    if (!s && error == "session_limit") {
        stats_.rejected("session_limit");
        return busy(id,
                    "at the session ceiling of " + std::to_string(settings_.max_sessions) +
                        " (--max-sessions); try again later",
                    5);
    }
    if (!s)
        return rpc_reply(http::status::bad_gateway, id, protocol::error_code::internal_error,
                         error);
    s->flights = std::make_unique<stateless_flights>();
    spdlog::info("session {} serves the stateless clients (one child for all of them)", s->tag);
    shared_ = s;
    return s;
}

asio::awaitable<std::optional<http_reply>>
shim_server::stateless_post(http_request& req, beast::tcp_stream& stream, protocol::message msg) {
    if (auto bad = check_stateless_headers(
            msg, transport::header_value(req, "MCP-Protocol-Version"),
            transport::header_value(req, "Mcp-Method"), transport::header_value(req, "Mcp-Name")))
        co_return rpc_reply(http::status::bad_request, msg.id, bad->code, bad->message);
    auto resolved = shared_child(msg.id);
    if (auto* refusal = std::get_if<http_reply>(&resolved))
        co_return std::move(*refusal);
    auto s = std::get<std::shared_ptr<shim_session>>(std::move(resolved));
    if (msg.method == "tools/call")
        if (auto wrong = s->flights->tools().mismatch(
                msg.params(), transport::headers_with_prefix(req, protocol::param_header_prefix)))
            co_return rpc_reply(http::status::bad_request, msg.id,
                                protocol::modern_code::header_mismatch, *wrong);
    if (s->flights->size() >= settings_.max_stateless_requests)
        co_return busy(msg.id,
                       "at the ceiling of " + std::to_string(settings_.max_stateless_requests) +
                           " stateless requests in flight; try again later",
                       1);
    bool streams = transport::accepts(transport::header_value(req, "Accept"), "text/event-stream");
    auto id = msg.id;
    auto sent = s->flights->add(std::move(msg), streams, req.body());
    auto queue = s->open_stream(io_.get_executor(), sent.key);
    s->waiting[sent.key] = queue;
    ledger_.begin_use(s->id, clock::now());
    struct done {
        shim_server* self;
        std::shared_ptr<shim_session> s;
        std::shared_ptr<client_stream> q;
        ~done() { self->end_stateless_flight(*s, q); }
    } cleanup{this, s, queue};
    queue->socket = &stream;
    s->child->send(to_stdio_line(sent.line));

    if (co_await wait(*s, *queue, stream, std::chrono::hours(24 * 365)) == woke::hung_up ||
        queue->cut)
        co_return std::nullopt; // gone: the cleanup cancels it at the child
    if (s->outbox.queued_messages(queue->id) == 1 && queue->answered) {
        auto answer = std::move(s->outbox.take(queue->id).front());
        s->outbox.written(queue->id);
        auto status = static_cast<http::status>(answer_status(answer));
        co_return http_reply::json(status, std::move(answer));
    }
    if (!s->outbox.has_queued(queue->id))
        co_return http_reply::json(http::status::ok, ended_text(*s, id));
    co_return co_await stateless_stream(*s, *queue, stream, req.version(), id);
}

// Messages came before the answer, or a listen: an event stream without event ids (the
// revision has no resumption), with keep-alive comments while a listen is quiet.
asio::awaitable<std::optional<http_reply>>
shim_server::stateless_stream(shim_session& s, client_stream& queue, beast::tcp_stream& stream,
                              unsigned version, const json::value& id) {
    stream.expires_never();
    if (co_await transport::open_event_stream(stream, version, "gate-stdio", std::nullopt))
        co_return std::nullopt;
    for (;;) {
        if (queue.cut)
            co_return std::nullopt;
        auto messages = s.outbox.take(queue.id);
        bool last = queue.answered && !messages.empty();
        std::string frame;
        for (auto& m : messages)
            frame += transport::format_sse(m);
        messages = {};
        if (!last && s.ended) {
            frame += transport::format_sse(ended_text(s, id));
            last = true;
        }
        if (!frame.empty() && !co_await s.write(queue, frame, settings_.write_deadline, stats_))
            co_return std::nullopt;
        if (last)
            break;
        auto w = co_await wait(s, queue, stream, keep_alive);
        if (w == woke::hung_up)
            co_return std::nullopt;
        if (w == woke::quiet &&
            !co_await s.write(queue, ": keep-alive\n\n", settings_.write_deadline, stats_))
            co_return std::nullopt;
    }
    co_await transport::close_event_stream(stream);
    co_return std::nullopt;
}

// However a stateless request ended: unanswered (its client hung up, its stream was cut or
// its write failed), the child is told to stop (`notifications/cancelled` with the id the
// child knows it by).
void shim_server::end_stateless_flight(shim_session& s, const std::shared_ptr<client_stream>& q) {
    q->socket = nullptr;
    if (auto it = s.waiting.find(q->request_key); it != s.waiting.end() && it->second == q)
        s.waiting.erase(it);
    s.flights->remove(q->request_key);
    if (!q->answered && !s.ended && s.child && !s.child->exited()) {
        spdlog::debug("session {}: request {} cancelled (its client closed the stream)", s.tag,
                      q->request_key);
        s.child->send(to_stdio_line(stateless_flights::cancel_line(
            q->request_key, "the HTTP client closed the response stream")));
    }
    s.close_stream(*q);
    ledger_.end_use(s.id, clock::now());
}

void shim_server::on_stateless_line(shim_session& s, protocol::message msg,
                                    const std::string& line) {
    bool request = msg.kind == protocol::message_kind::request;
    auto id = msg.id;
    auto routed = s.flights->route(std::move(msg), line);
    auto it = routed ? s.waiting.find(routed->key) : s.waiting.end();
    if (it == s.waiting.end() || it->second->cut) {
        spdlog::debug("session {}: a message for no stateless request in flight, dropped: {}",
                      s.tag, loggable_line(line, line.size(), settings_.log_limits.max_line_bytes));
        if (request) // a 2026-07-28 server asks nothing over stdio; do not leave it waiting
            s.child->send(to_stdio_line(json::serialize(protocol::make_error(
                id, protocol::error_code::method_not_found,
                "gate-stdio: stateless clients are asked through input_required results, not "
                "server requests"))));
        return;
    }
    if (routed->answer)
        s.flights->remove(routed->key); // later messages for it go nowhere
    s.deliver(it->second.get(), std::move(routed->text), routed->answer, stats_);
}

} // namespace gate::shim
