// A real PostgreSQL 15 for tests (Debian's postgresql package; the same as
// tests/js/lib/postgres.mjs): a fresh cluster in a temporary folder, on 127.0.0.1 and a free
// port, ready when constructed (it said so on its stderr), stopped by its PID. As root it runs
// as the `postgres` user, since initdb refuses root. PG_BIN overrides where the binaries are.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <pwd.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace gate::test {

class postgres_server {
public:
    postgres_server() {
        const char* bin_env = std::getenv("PG_BIN");
        bin_ = bin_env ? bin_env : "/usr/lib/postgresql/15/bin";
        if (!std::filesystem::exists(bin_ / "initdb")) {
            ADD_FAILURE() << "no PostgreSQL at " << bin_
                          << " (scripts/install-deps.sh installs it)";
            return;
        }
        char tmpl[] = "/tmp/gate-pg-XXXXXX";
        dir_ = mkdtemp(tmpl);
        if (getuid() == 0)
            if (auto* pw = getpwnam("postgres")) {
                uid_ = pw->pw_uid;
                gid_ = pw->pw_gid;
                EXPECT_EQ(chown(dir_.c_str(), uid_, gid_), 0);
            }
        auto data = (dir_ / "data").string();
        int status = -1;
        pid_t init = launch({(bin_ / "initdb").string(), "-D", data, "-A", "trust", "-U",
                             "postgres", "--no-sync", "-E", "UTF8"},
                            -1);
        waitpid(init, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            ADD_FAILURE() << "initdb failed";
            return;
        }
        start(data);
    }
    postgres_server(const postgres_server&) = delete;
    postgres_server& operator=(const postgres_server&) = delete;
    ~postgres_server() {
        if (pid_ > 0) {
            ::kill(pid_, SIGQUIT); // immediate shutdown: the cluster is thrown away
            waitpid(pid_, nullptr, 0);
        }
        if (drain_.joinable())
            drain_.join();
        if (!dir_.empty())
            std::filesystem::remove_all(dir_);
    }

    bool ready() const { return ready_; }
    // The cluster's own database, empty but for what a test makes.
    std::string url() const {
        return "postgres://postgres@127.0.0.1:" + std::to_string(port_) + "/postgres";
    }

private:
    static std::uint16_t free_port() {
        boost::asio::io_context io;
        boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
        return a.local_endpoint().port();
    }

    // The program with stderr on `err_fd` (-1: discarded), as the postgres user when root.
    // Between fork and exec only async-signal-safe calls: the arguments are made before.
    pid_t launch(std::vector<std::string> args, int err_fd) {
        std::vector<char*> argv;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        pid_t pid = fork();
        if (pid == 0) {
            int null_fd = open("/dev/null", O_WRONLY);
            dup2(null_fd, 1);
            dup2(err_fd >= 0 ? err_fd : null_fd, 2);
            if (gid_ && setgid(gid_) != 0)
                _exit(126);
            if (uid_ && setuid(uid_) != 0)
                _exit(126);
            execv(argv[0], argv.data());
            _exit(127);
        }
        return pid;
    }

    void start(const std::string& data) {
        port_ = free_port();
        int err[2];
        ASSERT_EQ(pipe(err), 0);
        pid_ = launch({(bin_ / "postgres").string(), "-D", data, "-p", std::to_string(port_), "-k",
                       dir_.string(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"},
                      err[1]);
        close(err[1]);
        FILE* f = fdopen(err[0], "r");
        char line[1024];
        std::string said;
        while (!ready_ && fgets(line, sizeof line, f)) {
            said += line;
            ready_ = std::string_view(line).find("ready to accept connections") !=
                     std::string_view::npos;
        }
        EXPECT_TRUE(ready_) << "postgres did not start:\n" << said;
        // Its later log is read and dropped, so a full pipe never stalls the server.
        drain_ = std::thread([f] {
            char rest[1024];
            while (fgets(rest, sizeof rest, f)) {
            }
            fclose(f);
        });
    }

    std::filesystem::path bin_, dir_;
    uid_t uid_ = 0;
    gid_t gid_ = 0;
    pid_t pid_ = -1;
    std::uint16_t port_ = 0;
    bool ready_ = false;
    std::thread drain_;
};

} // namespace gate::test
