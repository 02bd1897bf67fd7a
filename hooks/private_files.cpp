#include "hooks/private_files.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace gate::hooks {

namespace {

constexpr mode_t others_bits = S_IRWXG | S_IRWXO;

std::string octal(mode_t mode) {
    std::string out;
    for (int shift = 9; shift >= 0; shift -= 3)
        out += static_cast<char>('0' + ((mode >> shift) & 7));
    return out;
}

class fd_closer {
public:
    explicit fd_closer(int fd) : fd_(fd) {}
    ~fd_closer() { ::close(fd_); }
    fd_closer(const fd_closer&) = delete;
    fd_closer& operator=(const fd_closer&) = delete;

private:
    int fd_;
};

// On the open file, not its name: what is checked is what is changed.
void tighten(int fd, const std::string& name, std::vector<std::string>& tightened) {
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        throw std::runtime_error("cannot inspect " + name + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw std::runtime_error(name + " is not a regular file");
    if ((st.st_mode & others_bits) == 0)
        return;
    auto was = st.st_mode & 07777;
    if (::fchmod(fd, st.st_mode & S_IRWXU) != 0)
        throw std::runtime_error(name + " holds webhook secrets and is readable by others (mode " +
                                 octal(was) + "), and gate-hooks cannot change that (" +
                                 std::strerror(errno) + "): chmod 600 it as its owner");
    tightened.push_back(name + " (was " + octal(was) + ")");
}

constexpr mode_t config_others_bits = S_IROTH | S_IWOTH;

} // namespace

std::string read_private_config(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    fd_closer close(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        throw std::runtime_error("cannot inspect " + path + ": " + std::strerror(errno));
    if ((st.st_mode & config_others_bits) != 0)
        throw std::runtime_error(
            path + " holds every organization's token and other users may " +
            ((st.st_mode & S_IROTH) != 0 ? "read" : "change") + " it (mode " +
            octal(st.st_mode & 07777) + "): gate-hooks does not start from it. Take their " +
            "access away (chmod o-rwx " + path + "; docs/operations.md installs it with " +
            "install -m 0600), and give each organization a new token if others could read " +
            "the file");
    std::string text;
    char buffer[8192];
    for (;;) {
        auto n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
        if (n == 0)
            return text;
        text.append(buffer, static_cast<std::size_t>(n));
    }
}

std::vector<std::string> keep_database_private(const std::string& path) {
    if (path.empty() || path == ":memory:")
        return {};
    if (path.starts_with("file:"))
        throw std::runtime_error("database " + path +
                                 ": give a file path, not a file: URI (gate-hooks creates the "
                                 "file itself, readable by its owner only)");
    std::vector<std::string> tightened;
    // 0600 at creation, so no other user can open it even for an instant (an open descriptor
    // outlives a later chmod); the umask can only narrow it.
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, S_IRUSR | S_IWUSR);
    if (fd < 0)
        throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    {
        fd_closer close(fd);
        tighten(fd, path, tightened);
    }
    // SQLite names its side files after the database's real path, symbolic links followed.
    std::string real = path;
    if (char* resolved = ::realpath(path.c_str(), nullptr)) {
        real = resolved;
        std::free(resolved);
    }
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
        auto name = real + suffix;
        int side = ::open(name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (side < 0) {
            if (errno == ENOENT)
                continue;
            throw std::runtime_error("cannot open " + name + ": " + std::strerror(errno));
        }
        fd_closer close(side);
        tighten(side, name, tightened);
    }
    return tightened;
}

} // namespace gate::hooks
