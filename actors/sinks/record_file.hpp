// The file a recording goes to, with its size cap: when the next line would take the file
// past `cap` bytes, the file becomes FILE.1 (replacing an older FILE.1) and a new FILE starts.
// At most 2 x cap bytes on disk, so recording can be left on (docs/recording.md). Plain C++:
// the recorder actor owns one.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace gate::actors {

class record_file {
public:
    // Opens (appending to) `path`; nullopt and `why` when it cannot.
    static std::optional<record_file> open(std::string path, std::uint64_t cap, std::string& why);
    record_file(record_file&& o) noexcept;
    record_file& operator=(record_file&&) = delete;
    ~record_file();

    // Writes one line (rotating first when it would not fit). A line longer than the cap is
    // not written: false. False too when the disk refuses it (`error()` says why).
    bool write(std::string_view line);
    void flush();

    std::uint64_t size() const { return size_; }
    std::uint64_t rotations() const { return rotations_; }
    const std::string& error() const { return error_; }

private:
    record_file(std::string path, std::uint64_t cap, std::FILE* f, std::uint64_t size)
        : path_(std::move(path)), cap_(cap), f_(f), size_(size) {}
    bool rotate();
    std::string path_;
    std::uint64_t cap_;
    std::FILE* f_;
    std::uint64_t size_;
    std::uint64_t rotations_ = 0;
    std::string error_;
};

} // namespace gate::actors
