// Starting a child process the way the shim needs it: the program executed directly (no
// shell), in a process group of its own, with exactly the given environment and working
// directory, stdin/stdout/stderr on pipes, no other descriptor inherited, and a pidfd to
// learn of its exit without SIGCHLD.
#pragma once

#include <optional>
#include <string>
#include <sys/types.h>
#include <variant>
#include <vector>

namespace gate::shim {

struct spawn_request {
    std::vector<std::string> argv; // argv[0] is looked up on the shim's PATH
    std::vector<std::string> env;  // NAME=value, the child's whole environment
    std::optional<std::string> dir;
};

struct spawned {
    pid_t pid; // also the process group id
    int pidfd; // readable once the child has exited
    int stdin_fd, stdout_fd, stderr_fd;
};

// The error text says what failed ("cannot start \"x\": No such file or directory").
std::variant<spawned, std::string> spawn_child(const spawn_request& request);

// NAME=value for each named variable that is set in this process.
std::vector<std::string> passthrough_environment(const std::vector<std::string>& names);

} // namespace gate::shim
