// gate-stdio's HTTP face: the MCP endpoint (POST/GET/DELETE /mcp) where each session owns
// one child process, plus /health and /metrics. Everything runs on one io thread: a
// session's state is its child's pipes and the client streams waiting on them.
#pragma once

#include "protocol/json_rpc.hpp"
#include "shim/metrics.hpp"
#include "shim/session_ledger.hpp"
#include "shim/spawn.hpp"
#include "shim/stateless_flights.hpp"
#include "shim/stderr_limit.hpp"
#include "transport/http/host_guard.hpp"
#include "transport/http/http_server.hpp"
#include "transport/io/memoized_flight.hpp"

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

namespace gate::shim {

struct shim_settings {
    spawn_request server; // command, environment, working directory
    std::size_t max_sessions = 64;
    std::size_t max_body_bytes = 1048576;
    std::optional<std::string> bearer; // the token callers must present
    bool loopback = true;              // a loopback listener checks Host
    std::chrono::milliseconds idle_after = std::chrono::minutes(5);
    std::chrono::milliseconds sweep_every = std::chrono::seconds(15);
    std::chrono::milliseconds kill_grace = std::chrono::seconds(3);
    std::chrono::milliseconds health_reuse = std::chrono::seconds(1);
    std::chrono::milliseconds health_timeout = std::chrono::seconds(5);
    std::size_t max_line_bytes = 16u << 20; // one message from the child
    std::size_t max_backlog = 256;          // messages held for a GET stream not yet open
    // What a session may hold toward its client (queued and being written), at least one
    // message of the largest size; past it the stream holding the most is cut.
    std::size_t max_queued_bytes = 16u << 20;
    // A client that takes no byte of an event stream's write for this long is cut.
    std::chrono::milliseconds write_deadline = std::chrono::seconds(30);
    // How much of each child's stderr, and of its stdout lines that are not JSON-RPC, reaches
    // the log (a bucket of these limits for each pipe).
    stderr_limits log_limits;
    // Stateless (2026-07-28) clients share one child: at most this many of their requests in
    // flight at once (503 past it), and at most `max_child_starts` starts of that child within
    // `child_start_window` (503 until the window allows another).
    std::size_t max_stateless_requests = 256;
    std::size_t max_child_starts = 5;
    std::chrono::milliseconds child_start_window = std::chrono::seconds(60);
};

struct shim_session;
struct client_stream;

// A refusal of the shim's own (not JSON-RPC): {"error": text} with `status`.
transport::http_reply json_error(boost::beast::http::status status, std::string_view text);

class shim_server final : public transport::http_handler {
public:
    shim_server(boost::asio::io_context& io, shim_settings settings);
    ~shim_server() override;

    std::uint16_t listen(const std::string& host, std::uint16_t port);
    // Stops accepting, ends every session, and calls `then` once every child is reaped.
    void shutdown(std::function<void()> then);

    // Sessions whose child has not been reaped yet (io thread).
    std::size_t children() const { return sessions_.size(); }
    // Ends the sessions idle at `now` (io thread); the sweep timer calls it with the clock.
    void sweep_idle(std::chrono::steady_clock::time_point now);
    // Observes every reaped child (tests wait on it instead of polling).
    std::function<void(pid_t)> on_reaped;

    std::optional<transport::http_reply> admit(const transport::http_request& req,
                                               time_point start) override;
    transport::http_reply refused(transport::server_refusal why, std::size_t limit,
                                  time_point start) override;
    boost::asio::awaitable<std::optional<transport::http_reply>>
    respond(transport::http_request& req, boost::beast::tcp_stream& stream,
            const boost::asio::ip::address& peer, time_point start) override;

private:
    struct health_answer {
        bool ok;
        std::string body;
    };

    boost::asio::awaitable<std::optional<transport::http_reply>>
    post(transport::http_request& req, boost::beast::tcp_stream& stream);
    boost::asio::awaitable<std::optional<transport::http_reply>>
    get(transport::http_request& req, boost::beast::tcp_stream& stream);
    // The session a POST belongs to, or opens (`opening`: an initialize); else the refusal.
    std::variant<std::shared_ptr<shim_session>, transport::http_reply>
    session_for(const transport::http_request& req, const protocol::message& msg, bool& opening);
    // A request's end of flight, however it ended: its stream closed, its id free again.
    void end_flight(shim_session& s, const std::shared_ptr<client_stream>& q);
    // The usual case: the answer came first and alone, so it goes back as plain JSON (an
    // initialize's answer fixes the session's protocol version, or ends it when refused).
    transport::http_reply plain_answer(shim_session& s, client_stream& queue, bool opening,
                                       const std::optional<std::string>& session_header);
    boost::asio::awaitable<std::optional<transport::http_reply>>
    stream_answer(shim_session& s, client_stream& queue, boost::beast::tcp_stream& stream,
                  unsigned version, const boost::json::value& id,
                  std::optional<std::string> session_header);
    transport::http_reply del(const transport::http_request& req);

    // Stateless clients (shim/stateless_post.cpp): the shared child, started when needed.
    std::variant<std::shared_ptr<shim_session>, transport::http_reply>
    shared_child(const boost::json::value& id);
    boost::asio::awaitable<std::optional<transport::http_reply>>
    stateless_post(transport::http_request& req, boost::beast::tcp_stream& stream,
                   protocol::message msg);
    boost::asio::awaitable<std::optional<transport::http_reply>>
    stateless_stream(shim_session& s, client_stream& queue, boost::beast::tcp_stream& stream,
                     unsigned version, const boost::json::value& id);
    void end_stateless_flight(shim_session& s, const std::shared_ptr<client_stream>& q);
    void on_stateless_line(shim_session& s, protocol::message msg, const std::string& line);
    boost::asio::awaitable<health_answer> health();
    boost::asio::awaitable<void> sweep();

    std::shared_ptr<shim_session> start_session(std::string& error);
    void on_child_line(const std::shared_ptr<shim_session>& s, std::string line);
    void end_session(shim_session& s, std::string reason);
    void reaped(const std::string& id, pid_t pid);

    boost::asio::io_context& io_;
    shim_settings settings_;
    transport::host_guard guard_;
    shim_metrics stats_;
    session_ledger ledger_;
    std::map<std::string, std::shared_ptr<shim_session>> sessions_;
    std::shared_ptr<shim_session> shared_; // the stateless clients' child, while it lives
    restart_budget child_starts_;
    transport::memoized_flight<health_answer> health_memo_;
    transport::http_server server_;
    std::function<void()> on_all_reaped_;
    bool shutting_down_ = false;
};

} // namespace gate::shim
