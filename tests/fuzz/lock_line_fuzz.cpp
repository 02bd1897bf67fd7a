// The lock file's format (config/lock_format) on arbitrary bytes: reading a line never crashes;
// an entry read from any line is lockable and reads back from the line written for it; and
// two arbitrary names (the input split at its first byte's value) that the writer finds
// lockable read back as written.
#include "config/lock_format.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gate::config;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto read = read_lock_line(text);
    if (auto* e = std::get_if<lock_entry>(&read))
        if (!lockable(*e) || read_lock_line(lock_line(*e)) != read)
            std::abort();
    if (size == 0)
        return 0;
    auto cut = std::min<std::size_t>(data[0], size - 1);
    lock_entry e{std::string(text.substr(1, cut)), std::string(text.substr(1 + cut)),
                 "sha256:" + std::string(64, '0')};
    if (lockable(e)) {
        auto back = read_lock_line(lock_line(e));
        if (!std::holds_alternative<lock_entry>(back) || std::get<lock_entry>(back) != e)
            std::abort();
    }
    return 0;
}
