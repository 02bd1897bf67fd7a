// One gate-stdio session on the io thread: its child, its requests in flight, and the client
// streams its child's messages go to (a POST answered as an event stream, the GET stream),
// within what the session may hold toward its client (`session_outbox`). A stream the budget
// gives up is cut at once, even in the middle of a write its client is not taking, so what
// it held is freed now rather than when the write deadline passes.
#pragma once

#include "shim/child_log.hpp"
#include "shim/child_process.hpp"
#include "shim/message_routing.hpp"
#include "shim/metrics.hpp"
#include "shim/session_outbox.hpp"
#include "shim/stateless_flights.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace gate::shim {

struct client_stream {
    client_stream(boost::asio::any_io_executor ex, session_outbox::stream_id id,
                  std::string request_key);

    session_outbox::stream_id id;
    std::string request_key; // a POST's request; empty for the GET stream
    boost::asio::steady_timer wake;
    bool answered = false; // the request's answer is queued (a POST)
    bool cut = false;      // given up: it ends without its last chunk
    bool timed_out = false;
    boost::beast::tcp_stream* socket = nullptr; // its connection, which a cut closes

    void notify() { wake.cancel(); }
    // Sleeps until notified, or for `at_most`.
    boost::asio::awaitable<void>
    sleep(std::chrono::steady_clock::duration at_most = std::chrono::hours(24 * 365));
    // Writes one chunk of the event stream within `deadline`; false when the stream is over
    // (the client went away, took nothing for `deadline`, or the stream was cut meanwhile).
    boost::asio::awaitable<bool> write(const std::string& frame,
                                       std::chrono::milliseconds deadline);
};

struct shim_session {
    shim_session(std::size_t max_queued_bytes, std::size_t max_backlog)
        : outbox(max_queued_bytes, max_backlog) {}

    std::string id;
    std::string tag; // the id's first 8 characters, for logs (the id itself is a credential)
    std::shared_ptr<child_process> child;
    std::shared_ptr<child_log> log; // what of the child's own writing reaches the log
    inflight_requests inflight;
    // Set for the child stateless (2026-07-28) clients share; its requests are `flights`, not
    // `inflight`, and it has no GET stream.
    std::unique_ptr<stateless_flights> flights;
    session_outbox outbox;
    std::map<std::string, std::shared_ptr<client_stream>> waiting; // POSTs, by request key
    std::shared_ptr<client_stream> stream;                         // the open GET stream
    bool backlog_warned = false; // dropping from the backlog was logged (once per stream wait)
    std::string protocol_version;
    std::optional<std::string> ended; // why the session ended

    std::shared_ptr<client_stream> open_stream(boost::asio::any_io_executor ex,
                                               std::string request_key = {});
    void close_stream(const client_stream& c) { outbox.close(c.id); }
    // Queues one of the child's messages for `to` (null: the GET stream, or its backlog
    // while none is open), cutting what the session's bound requires; logged and counted.
    void deliver(client_stream* to, std::string message, bool answer, shim_metrics& stats);
    // Writes `frame` on `c` and releases what it held; a write the client did not take in
    // time is logged and counted.
    boost::asio::awaitable<bool> write(client_stream& c, const std::string& frame,
                                       std::chrono::milliseconds deadline, shim_metrics& stats);
    // Returns once `c` has messages, is cut, or the session ended.
    boost::asio::awaitable<void> next(client_stream& c);
    void wake_all();

private:
    std::shared_ptr<client_stream> find(session_outbox::stream_id id);
    void cut(client_stream& c, std::size_t bytes, shim_metrics& stats);
};

} // namespace gate::shim
