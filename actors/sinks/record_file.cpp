#include "actors/sinks/record_file.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

namespace gate::actors {

std::optional<record_file> record_file::open(std::string path, std::uint64_t cap,
                                             std::string& why) {
    std::FILE* f = std::fopen(path.c_str(), "ab");
    if (!f) {
        why = "cannot open " + path + " for writing: " + std::strerror(errno);
        return std::nullopt;
    }
    std::fseek(f, 0, SEEK_END);
    long at = std::ftell(f);
    return record_file(std::move(path), cap, f, at > 0 ? static_cast<std::uint64_t>(at) : 0);
}

record_file::record_file(record_file&& o) noexcept
    : path_(std::move(o.path_)), cap_(o.cap_), f_(std::exchange(o.f_, nullptr)), size_(o.size_),
      rotations_(o.rotations_), error_(std::move(o.error_)) {}

record_file::~record_file() {
    if (f_)
        std::fclose(f_);
}

bool record_file::rotate() {
    std::fclose(std::exchange(f_, nullptr));
    auto previous = path_ + ".1";
    if (std::rename(path_.c_str(), previous.c_str()) != 0) {
        error_ = "cannot rotate " + path_ + " to " + previous + ": " + std::strerror(errno);
        f_ = std::fopen(path_.c_str(), "ab"); // keep writing where we were, over the cap
        return false;
    }
    f_ = std::fopen(path_.c_str(), "wb");
    if (!f_) {
        error_ = "cannot open " + path_ + " after rotating: " + std::strerror(errno);
        return false;
    }
    size_ = 0;
    ++rotations_;
    return true;
}

bool record_file::write(std::string_view line) {
    if (line.size() > cap_)
        return false;
    if (size_ + line.size() > cap_ && size_ > 0 && !rotate() && !f_)
        return false;
    if (!f_ || std::fwrite(line.data(), 1, line.size(), f_) != line.size()) {
        error_ = "cannot write to " + path_ + ": " + std::strerror(errno);
        return false;
    }
    size_ += line.size();
    return true;
}

void record_file::flush() {
    if (f_)
        std::fflush(f_);
}

} // namespace gate::actors
