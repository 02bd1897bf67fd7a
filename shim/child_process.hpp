// One running stdio server on the io thread: newline-delimited messages out of its stdout,
// queued writes to its stdin, stderr lines to a callback, and a teardown that takes its
// whole process group (stdin closed, TERM, KILL after a grace period) and reaps it.
#pragma once

#include "shim/spawn.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <variant>

namespace gate::shim {

struct child_exit {
    std::string description; // "exited with status 1", "killed by signal 9 (Killed)"
    bool requested = false;  // terminate() was called first
};

class child_process : public std::enable_shared_from_this<child_process> {
public:
    struct callbacks {
        std::function<void(std::string line)> on_stdout_line;
        // A stderr line: its first 8 KiB at most, and its full length (an endless line is
        // one line, read through without being kept).
        std::function<void(std::string_view line, std::size_t length)> on_stderr_line;
        // The child is reaped (once, last).
        std::function<void(const child_exit&, pid_t)> on_exit;
    };

    // Spawns and starts reading; the error text says why it could not start.
    static std::variant<std::shared_ptr<child_process>, std::string>
    start(boost::asio::any_io_executor ex, const spawn_request& request, callbacks cb,
          std::size_t max_line_bytes);

    pid_t pid() const { return pid_; }
    bool exited() const { return reaped_; }
    // Queues one line (with its "\n") for stdin; dropped once stdin is closed.
    void send(std::string line);
    // Ends the child: stdin closed, TERM to its group, KILL to the group after `grace`.
    void terminate(std::chrono::milliseconds grace);

    child_process(boost::asio::any_io_executor ex, spawned s, callbacks cb);

private:
    boost::asio::awaitable<void> read_stdout(std::size_t max_line_bytes);
    boost::asio::awaitable<void> read_stderr();
    boost::asio::awaitable<void> await_exit();
    boost::asio::awaitable<void> write_stdin();
    boost::asio::awaitable<void> escalate(std::chrono::milliseconds grace);
    void close_stdin();

    pid_t pid_;
    boost::asio::posix::stream_descriptor stdin_, stdout_, stderr_, pidfd_;
    boost::asio::steady_timer kill_timer_, pipes_drained_;
    callbacks cb_;
    std::deque<std::string> outgoing_;
    bool writing_ = false, stdin_closed_ = false, terminating_ = false, reaped_ = false;
    bool stdout_done_ = false, stderr_done_ = false;
};

} // namespace gate::shim
