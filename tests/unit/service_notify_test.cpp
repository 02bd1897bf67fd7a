// Readiness under systemd's notify protocol, with the real binaries: each of gate, gate-stdio
// and gate-hooks started with NOTIFY_SOCKET pointing at a datagram socket this test owns says
// READY=1 once its listener is bound (the port in its STATUS answers), gate says RELOADING=1
// and READY=1 around a SIGHUP reload, and each says STOPPING=1 on SIGTERM and exits 0.
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

// A datagram socket bound to a path in a fresh directory: NOTIFY_SOCKET for a child.
struct notify_socket {
    fs::path dir = fs::temp_directory_path() /
                   ("gate-notify-" + std::to_string(getpid()) + "-" + std::to_string(counter()++));
    fs::path path = dir / "notify";
    int fd = -1;
    notify_socket() {
        fs::create_directories(dir);
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
        EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    }
    ~notify_socket() {
        close(fd);
        fs::remove_all(dir);
    }
    // The next message, or nullopt if none comes within `bound_ms` (a failure's bound, not a
    // pause: the message normally arrives in milliseconds).
    std::optional<std::string> next(int bound_ms = 15000) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, bound_ms) != 1)
            return std::nullopt;
        char buf[4096];
        auto n = recv(fd, buf, sizeof buf, 0);
        return n < 0 ? std::nullopt : std::optional(std::string(buf, static_cast<std::size_t>(n)));
    }
    static int& counter() {
        static int n = 0;
        return n;
    }
};

struct child {
    pid_t pid = -1;
    child(std::vector<std::string> args, std::vector<std::string> env_extra) {
        std::vector<std::string> env;
        for (char** e = environ; *e; ++e)
            if (!std::string_view(*e).starts_with("NOTIFY_SOCKET=") &&
                !std::string_view(*e).starts_with("GATE_CONFIG="))
                env.emplace_back(*e);
        env.insert(env.end(), env_extra.begin(), env_extra.end());
        std::vector<char*> argv, envp;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        for (auto& e : env)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        EXPECT_EQ(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data()), 0);
        posix_spawn_file_actions_destroy(&fa);
    }
    int stop() {
        int status = 0;
        kill(pid, SIGTERM);
        waitpid(pid, &status, 0);
        pid = -1;
        return status;
    }
    ~child() {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
    }
};

// READY=1 with "STATUS=listening on port N": N, once something accepts a connection there.
int ready_port(const std::optional<std::string>& message) {
    EXPECT_TRUE(message) << "no readiness message";
    if (!message)
        return -1;
    EXPECT_NE(message->find("READY=1"), std::string::npos) << *message;
    auto at = message->find("STATUS=listening on port ");
    EXPECT_NE(at, std::string::npos) << *message;
    if (at == std::string::npos)
        return -1;
    int port = std::stoi(message->substr(at + 25));
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket s(io);
    boost::system::error_code ec;
    s.connect({boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)}, ec);
    EXPECT_FALSE(ec) << "nothing listens on the port it announced: " << ec.message();
    return port;
}

void expect_stopping(notify_socket& sock, child& c) {
    int status = c.stop();
    auto stopping = sock.next();
    ASSERT_TRUE(stopping);
    EXPECT_NE(stopping->find("STOPPING=1"), std::string::npos) << *stopping;
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

} // namespace

TEST(ServiceNotify, GateIsReadyOnceListeningAndSaysSoAroundAReload) {
    notify_socket sock;
    child gate({GATE_BIN, "--port", "0"},
               {"NOTIFY_SOCKET=" + sock.path.string(),
                R"(GATE_CONFIG={"upstreams":[{"id":"a","url":"http://127.0.0.1:1/mcp"}]})"});
    EXPECT_GT(ready_port(sock.next()), 0);
    kill(gate.pid, SIGHUP); // the inline document reloads as itself
    auto reloading = sock.next();
    ASSERT_TRUE(reloading);
    EXPECT_NE(reloading->find("RELOADING=1"), std::string::npos) << *reloading;
    auto ready_again = sock.next();
    ASSERT_TRUE(ready_again);
    EXPECT_NE(ready_again->find("READY=1"), std::string::npos) << *ready_again;
    expect_stopping(sock, gate);
}

TEST(ServiceNotify, GateStdioIsReadyOnceListening) {
    notify_socket sock;
    child shim({GATE_STDIO_BIN, "--port", "0", "--", "/bin/cat"},
               {"NOTIFY_SOCKET=" + sock.path.string()});
    EXPECT_GT(ready_port(sock.next()), 0);
    expect_stopping(sock, shim);
}

TEST(ServiceNotify, GateHooksIsReadyOnceListening) {
    notify_socket sock;
    auto config = sock.dir / "hooks.json";
    std::ofstream(config) << R"({"port":0,"database":")" << (sock.dir / "hooks.db").string()
                          << R"(","tokens":[{"organization":"o","token":"0123456789abcdef0"}]})";
    // Its owner's alone: gate-hooks refuses a configuration other users may read.
    std::filesystem::permissions(config, std::filesystem::perms::owner_read |
                                             std::filesystem::perms::owner_write);
    child hooks({GATE_HOOKS_BIN, "--config", config.string()},
                {"NOTIFY_SOCKET=" + sock.path.string()});
    EXPECT_GT(ready_port(sock.next()), 0);
    expect_stopping(sock, hooks);
}
