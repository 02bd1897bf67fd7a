#include "shim/child_process.hpp"

#include "shim/line_splitter.hpp"

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <csignal>
#include <cstring>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

namespace gate::shim {

namespace asio = boost::asio;

namespace {

constexpr std::size_t max_stderr_line = 8192;

std::string describe(int status) {
    if (WIFEXITED(status))
        return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")";
    return "ended (wait status " + std::to_string(status) + ")";
}

} // namespace

child_process::child_process(asio::any_io_executor ex, spawned s, callbacks cb)
    : pid_(s.pid), stdin_(ex, s.stdin_fd), stdout_(ex, s.stdout_fd), stderr_(ex, s.stderr_fd),
      pidfd_(ex, s.pidfd), kill_timer_(ex), pipes_drained_(ex), cb_(std::move(cb)) {}

std::variant<std::shared_ptr<child_process>, std::string>
child_process::start(asio::any_io_executor ex, const spawn_request& request, callbacks cb,
                     std::size_t max_line_bytes) {
    auto s = spawn_child(request);
    if (auto* err = std::get_if<std::string>(&s))
        return *err;
    auto child = std::make_shared<child_process>(ex, std::get<spawned>(s), std::move(cb));
    asio::co_spawn(ex, child->read_stdout(max_line_bytes), asio::detached);
    asio::co_spawn(ex, child->read_stderr(), asio::detached);
    asio::co_spawn(ex, child->await_exit(), asio::detached);
    return child;
}

void child_process::send(std::string line) {
    if (stdin_closed_ || reaped_)
        return;
    outgoing_.push_back(std::move(line));
    if (!writing_) {
        writing_ = true;
        asio::co_spawn(stdin_.get_executor(), write_stdin(), asio::detached);
    }
}

asio::awaitable<void> child_process::write_stdin() {
    auto self = shared_from_this();
    while (!outgoing_.empty() && !stdin_closed_) {
        auto line = std::move(outgoing_.front());
        outgoing_.pop_front();
        boost::system::error_code ec;
        co_await asio::async_write(stdin_, asio::buffer(line),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            // The child closed its stdin or exited; its exit is reported by await_exit.
            outgoing_.clear();
            break;
        }
    }
    writing_ = false;
    if (terminating_)
        close_stdin();
}

asio::awaitable<void> child_process::read_stdout(std::size_t max_line_bytes) {
    auto self = shared_from_this();
    line_splitter lines(max_line_bytes);
    std::array<char, 65536> buf;
    std::vector<std::string> out;
    for (;;) {
        boost::system::error_code ec;
        auto n = co_await stdout_.async_read_some(asio::buffer(buf),
                                                  asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            break;
        out.clear();
        if (!lines.feed(std::string_view(buf.data(), n), out)) {
            spdlog::warn("child {}: a stdout line exceeds {} bytes; ending the server", pid_,
                         max_line_bytes);
            terminate(std::chrono::seconds(2));
            break;
        }
        for (auto& l : out)
            if (cb_.on_stdout_line)
                cb_.on_stdout_line(std::move(l));
    }
    stdout_done_ = true;
    pipes_drained_.cancel();
}

asio::awaitable<void> child_process::read_stderr() {
    auto self = shared_from_this();
    std::array<char, 8192> buf;
    // The line so far, kept up to max_stderr_line bytes; `length` counts all of it, so an
    // endless line costs one bounded buffer and is reported as one line with its length.
    std::string partial;
    std::size_t length = 0;
    auto emit = [&] {
        std::string_view line(partial);
        if (line.size() == length && !line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
            --length;
        }
        if (length > 0 && cb_.on_stderr_line)
            cb_.on_stderr_line(line, length);
        partial.clear();
        length = 0;
    };
    for (;;) {
        boost::system::error_code ec;
        auto n = co_await stderr_.async_read_some(asio::buffer(buf),
                                                  asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            break;
        std::string_view in(buf.data(), n);
        while (!in.empty()) {
            auto nl = in.find('\n');
            auto piece = in.substr(0, nl);
            partial.append(piece.substr(0, max_stderr_line - partial.size()));
            length += piece.size();
            if (nl == std::string_view::npos)
                break;
            emit();
            in.remove_prefix(nl + 1);
        }
    }
    emit();
    stderr_done_ = true;
    pipes_drained_.cancel();
}

asio::awaitable<void> child_process::await_exit() {
    auto self = shared_from_this();
    boost::system::error_code ec;
    co_await pidfd_.async_wait(asio::posix::descriptor_base::wait_read,
                               asio::redirect_error(asio::use_awaitable, ec));
    // The leader is a zombie now, so its group id cannot have been reused: whatever it left
    // in its group (a grandchild, say) goes with it.
    ::kill(-pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    kill_timer_.cancel();
    close_stdin();
    // The answers (and stderr lines) the child wrote before exiting are still in the pipes:
    // read them before the exit is reported, but do not wait on a descriptor some escaped
    // process holds.
    auto drain_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!(stdout_done_ && stderr_done_) && std::chrono::steady_clock::now() < drain_deadline) {
        pipes_drained_.expires_at(drain_deadline);
        co_await pipes_drained_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    if (!(stdout_done_ && stderr_done_)) {
        stdout_.close(ec);
        stderr_.close(ec);
    }
    pidfd_.close(ec);
    outgoing_.clear();
    if (cb_.on_exit)
        cb_.on_exit(child_exit{describe(status), terminating_}, pid_);
    // Nothing may call back into the owner after its exit notice.
    cb_ = {};
}

void child_process::close_stdin() {
    if (stdin_closed_)
        return;
    stdin_closed_ = true;
    boost::system::error_code ec;
    stdin_.close(ec);
}

void child_process::terminate(std::chrono::milliseconds grace) {
    if (reaped_ || terminating_)
        return;
    terminating_ = true;
    // A stdio server's cue to exit is the end of its input; the signals back it up.
    if (!writing_)
        close_stdin();
    ::kill(-pid_, SIGTERM);
    asio::co_spawn(kill_timer_.get_executor(), escalate(grace), asio::detached);
}

asio::awaitable<void> child_process::escalate(std::chrono::milliseconds grace) {
    auto self = shared_from_this();
    kill_timer_.expires_after(grace);
    boost::system::error_code ec;
    co_await kill_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (!reaped_)
        ::kill(-pid_, SIGKILL);
}

} // namespace gate::shim
