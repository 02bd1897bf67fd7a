#include "shim/spawn.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace gate::shim {

namespace {

std::string failure(const spawn_request& r, std::string_view what, int err) {
    return "cannot start \"" + (r.argv.empty() ? std::string() : r.argv.front()) +
           "\": " + std::string(what) + std::strerror(err);
}

struct pipe_pair {
    int read = -1, write = -1;
    ~pipe_pair() {
        if (read >= 0)
            ::close(read);
        if (write >= 0)
            ::close(write);
    }
    int take_read() { return std::exchange(read, -1); }
    int take_write() { return std::exchange(write, -1); }
};

} // namespace

std::variant<spawned, std::string> spawn_child(const spawn_request& r) {
    if (r.argv.empty())
        return std::string("cannot start the server: no command");
    pipe_pair in, out, err;
    for (auto* p : {&in, &out, &err}) {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            return failure(r, "pipe: ", errno);
        p->read = fds[0];
        p->write = fds[1];
    }

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in.read, 0);
    posix_spawn_file_actions_adddup2(&actions, out.write, 1);
    posix_spawn_file_actions_adddup2(&actions, err.write, 2);
    // Sockets of other clients must not leak into the child (Asio does not open them
    // close-on-exec).
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (r.dir)
        posix_spawn_file_actions_addchdir_np(&actions, r.dir->c_str());

    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, 0); // a group of its own, led by the child
    sigset_t none, defaults;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    // The shim ignores SIGPIPE, and whatever started the shim may have ignored others (a
    // `trap '' HUP USR1`, nohup): the child starts with every standard signal at its default.
    sigemptyset(&defaults);
    for (int sig = 1; sig < 32; ++sig)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaddset(&defaults, sig);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> argv, envp;
    for (const auto& a : r.argv)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& e : r.env)
        envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);

    pid_t pid = -1;
    int rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0)
        return failure(r, "", rc);

    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) {
        int e = errno;
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        return failure(r, "pidfd_open: ", e);
    }
    return spawned{pid, pidfd, in.take_write(), out.take_read(), err.take_read()};
}

std::vector<std::string> passthrough_environment(const std::vector<std::string>& names) {
    std::vector<std::string> env;
    for (const auto& name : names)
        if (const char* v = std::getenv(name.c_str()))
            env.push_back(name + "=" + v);
    return env;
}

} // namespace gate::shim
