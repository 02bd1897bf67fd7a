#include "shim/shim_session.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <spdlog/spdlog.h>

namespace gate::shim {

namespace asio = boost::asio;
namespace beast = boost::beast;

client_stream::client_stream(asio::any_io_executor ex, session_outbox::stream_id id,
                             std::string request_key)
    : id(id), request_key(std::move(request_key)),
      wake(std::move(ex), asio::steady_timer::time_point::max()) {}

asio::awaitable<void> client_stream::sleep(std::chrono::steady_clock::duration at_most) {
    boost::system::error_code ec; // cancellation is the wake-up
    wake.expires_after(at_most);
    co_await wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<bool> client_stream::write(const std::string& frame,
                                           std::chrono::milliseconds deadline) {
    boost::system::error_code ec;
    socket->expires_after(deadline);
    // The chunk framing goes around the frame as separate buffers: no copy of what may be
    // megabytes.
    co_await asio::async_write(*socket, beast::http::make_chunk(asio::buffer(frame)),
                               asio::redirect_error(asio::use_awaitable, ec));
    timed_out = ec == beast::error::timeout;
    co_return !ec && !cut;
}

std::shared_ptr<client_stream> shim_session::open_stream(asio::any_io_executor ex,
                                                         std::string request_key) {
    return std::make_shared<client_stream>(std::move(ex), outbox.open(), std::move(request_key));
}

std::shared_ptr<client_stream> shim_session::find(session_outbox::stream_id id) {
    if (stream && stream->id == id)
        return stream;
    for (auto& [key, c] : waiting)
        if (c->id == id)
            return c;
    return nullptr;
}

void shim_session::cut(client_stream& c, std::size_t bytes, shim_metrics& stats) {
    auto keep = find(c.id); // the GET stream may be let go of below
    bool post = !c.request_key.empty();
    spdlog::warn("session {}: the client is not reading its {}: {} bytes held toward it, over "
                 "the session's bound of {}; the stream is cut",
                 tag, post ? "POST's event stream" : "GET stream", bytes, outbox.max_bytes());
    stats.stream_cut("queue_full");
    c.cut = true;
    // Its messages from now on go where they would go without it: the request is no longer
    // in flight, and the GET stream's are held for the next one.
    if (post && flights)
        flights->remove(c.request_key);
    else if (post)
        inflight.remove(c.request_key);
    else if (stream.get() == &c)
        stream.reset();
    if (c.socket) {
        // Closed, not just cancelled: a write the client is not taking ends now, and the
        // connection cannot carry another answer after a stream broken off (the kernel still
        // delivers what it had taken, then the end).
        boost::system::error_code ec;
        c.socket->socket().close(ec);
    }
    c.notify();
}

void shim_session::deliver(client_stream* to, std::string message, bool answer,
                           shim_metrics& stats) {
    auto get_stream = stream; // `to` stays valid even if the GET stream is cut below
    if (!to)
        to = get_stream.get();
    auto pushed = outbox.push(to ? to->id : session_outbox::backlog, std::move(message));
    for (auto [id, bytes] : pushed.cut)
        if (auto c = find(id))
            cut(*c, bytes, stats);
    if (pushed.dropped)
        stats.messages_dropped("stream_cut", pushed.dropped);
    if (pushed.backlog_dropped) {
        stats.messages_dropped("backlog_full", pushed.backlog_dropped);
        if (!std::exchange(backlog_warned, true))
            spdlog::warn("session {}: no GET stream takes the server's messages; dropping the "
                         "oldest held (at most {} bytes and {} messages; further drops are "
                         "counted in gate_stdio_messages_dropped_total)",
                         tag, outbox.max_bytes(), outbox.max_backlog());
    }
    if (pushed.queued && to) {
        to->answered = to->answered || answer;
        to->notify();
    }
}

asio::awaitable<bool> shim_session::write(client_stream& c, const std::string& frame,
                                          std::chrono::milliseconds deadline, shim_metrics& stats) {
    auto ok = co_await c.write(frame, deadline);
    outbox.written(c.id);
    if (c.timed_out) {
        spdlog::warn("session {}: the client took nothing of its {} for {} ms; the stream is cut",
                     tag, c.request_key.empty() ? "GET stream" : "POST's event stream",
                     deadline.count());
        stats.stream_cut("write_timeout");
    }
    co_return ok;
}

asio::awaitable<void> shim_session::next(client_stream& c) {
    if (!outbox.has_queued(c.id) && !ended && !c.cut)
        co_await c.sleep();
}

void shim_session::wake_all() {
    for (auto& [key, c] : waiting)
        c->notify();
    if (stream)
        stream->notify();
}

} // namespace gate::shim
