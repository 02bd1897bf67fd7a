// A real Redis server for tests (Debian's redis-tools), started on a free loopback port and
// stopped by its PID.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

extern char** environ;

namespace gate::test {

inline std::uint16_t free_port() {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    return a.local_endpoint().port();
}

// redis-server is redis-check-rdb under another name (Debian ships the binary in redis-tools,
// and the redis-server package only adds a service we do not want started).
struct server_link {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("gate-redis-" + std::to_string(getpid()));
    server_link() {
        std::filesystem::create_directories(dir);
        std::filesystem::create_symlink("/usr/bin/redis-check-rdb", dir / "redis-server");
    }
    ~server_link() { std::filesystem::remove_all(dir); }
};
inline std::string server_binary() {
    static server_link link;
    return (link.dir / "redis-server").string();
}

// A Redis server on 127.0.0.1:port, ready when constructed (it said so on its stdout).
struct redis_server {
    pid_t pid = -1;
    FILE* log = nullptr;
    redis_server(std::uint16_t port, std::vector<std::string> extra = {}) {
        std::vector<std::string> args{
            server_binary(), "--port", std::to_string(port), "--bind", "127.0.0.1",
            "--save",        "",       "--appendonly",       "no"};
        args.insert(args.end(), extra.begin(), extra.end());
        std::vector<char*> argv;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        int out[2];
        EXPECT_EQ(pipe(out), 0);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        posix_spawn_file_actions_addclose(&fa, out[0]);
        EXPECT_EQ(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ), 0);
        posix_spawn_file_actions_destroy(&fa);
        close(out[1]);
        FILE* f = fdopen(out[0], "r");
        char line[1024];
        bool ready = false;
        while (!ready && fgets(line, sizeof line, f))
            ready = std::string_view(line).find("Ready to accept connections") != std::string::npos;
        log = f; // kept open (and unread) until the server is gone: it logs little
        EXPECT_TRUE(ready) << "redis-server did not start";
    }
    void kill() {
        if (pid > 0) {
            ::kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
            pid = -1;
        }
        if (log)
            fclose(std::exchange(log, nullptr));
    }
    ~redis_server() { kill(); }
};

} // namespace gate::test
