#include "config/lock_format.hpp"

#include <algorithm>
#include <vector>

namespace gate::config {

namespace {

bool is_lock_digest(std::string_view d) {
    if (d.size() != 7 + 64 || !d.starts_with("sha256:"))
        return false;
    return std::all_of(d.begin() + 7, d.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::vector<std::string_view> lock_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_lock_separator(line[i]))
            ++i;
        auto start = i;
        while (i < line.size() && !is_lock_separator(line[i]))
            ++i;
        if (i > start)
            fields.push_back(line.substr(start, i - start));
    }
    return fields;
}

} // namespace

bool lockable_name(std::string_view name) {
    return !name.empty() && std::none_of(name.begin(), name.end(), is_lock_separator);
}

bool lockable(const lock_entry& e) {
    return lockable_name(e.upstream) && !e.upstream.starts_with('#') && lockable_name(e.tool) &&
           is_lock_digest(e.digest);
}

std::string lock_line(const lock_entry& e) {
    return e.upstream + " " + e.tool + " " + e.digest;
}

std::variant<lock_entry, lock_comment, std::string> read_lock_line(std::string_view line) {
    auto fields = lock_fields(line);
    if (fields.empty() || fields.front().starts_with('#'))
        return lock_comment{};
    if (fields.size() != 3)
        return "expected \"<upstream> <tool> sha256:<64 hex digits>\", got " +
               std::to_string(fields.size()) + " field" + (fields.size() == 1 ? "" : "s");
    if (!is_lock_digest(fields[2]))
        return std::string("the digest must be \"sha256:\" and 64 lower-case hex digits");
    return lock_entry{std::string(fields[0]), std::string(fields[1]), std::string(fields[2])};
}

} // namespace gate::config
