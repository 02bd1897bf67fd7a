// Writing an answer as a chunked text/event-stream, and the queue a request's coroutine sleeps
// on until there is something to write. Both programs stream a POST's answer this way when a
// server's messages come before the answer.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace gate::transport {

// Messages for one request (or one GET stream), oldest first; `answered` says the last one is
// the request's answer. Lives on the io thread. What it holds for a reader that does not read
// (a parked call's client, a slow one) is bounded as a session's stream is: past 256 messages
// or 4 MiB the oldest are dropped, never the answer, and counted.
struct message_queue {
    static constexpr std::size_t max_messages = 256;
    static constexpr std::size_t max_bytes = 4u << 20;

    explicit message_queue(boost::asio::any_io_executor ex)
        : wake(std::move(ex), boost::asio::steady_timer::time_point::max()) {}
    void push(std::string frame, bool answer = false) {
        bytes_ += frame.size();
        frames.push_back(std::move(frame));
        answered = answered || answer;
        while (frames.size() > 1 && (frames.size() > max_messages || bytes_ > max_bytes)) {
            bytes_ -= frames.front().size();
            frames.pop_front();
            if (++dropped == 1)
                said_dropped();
        }
        wake.cancel();
    }
    // The oldest frame, taken off the queue (there is one).
    std::string take() {
        auto frame = std::move(frames.front());
        frames.pop_front();
        bytes_ -= frame.size();
        return frame;
    }
    // Returns at once when a frame is queued, else when one is pushed.
    boost::asio::awaitable<void> wait();

    std::deque<std::string> frames; // read here; taken with take()
    bool answered = false;
    std::size_t dropped = 0; // frames dropped past the bounds
    boost::asio::steady_timer wake;

private:
    void said_dropped() const; // logged once per queue
    std::size_t bytes_ = 0;
};

// Writes the header of a chunked text/event-stream answer (with `Mcp-Session-Id` when given).
boost::asio::awaitable<boost::system::error_code>
open_event_stream(boost::beast::tcp_stream& stream, unsigned version, std::string_view server,
                  std::optional<std::string> session_header);
// The header of a chunked text/event-stream answer, as bytes, for a first write that carries
// it together with the first frame.
std::string event_stream_head(unsigned version, std::string_view server,
                              std::optional<std::string> session_header);
// Writes one chunk; a client that stops reading for 30 s is cut off. `head` (the answer's
// header, when this is its first write) goes in front, and with `last` the terminating chunk
// follows: one write and one wake-up of the reader instead of up to three.
boost::asio::awaitable<boost::system::error_code>
write_event_chunk(boost::beast::tcp_stream& stream, const std::string& frame, bool last = false,
                  std::string_view head = {});
boost::asio::awaitable<void> close_event_stream(boost::beast::tcp_stream& stream);

} // namespace gate::transport
