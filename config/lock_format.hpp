// The lock file's one format (docs/configuration.md, "Pinned definitions"), written by
// `gate definitions lock` and read with the document: one line per tool definition,
// "<upstream id> <tool name> sha256:<64 hex>", its fields separated by ASCII whitespace (space,
// tab, LF, VT, FF, CR); blank lines and lines whose first field starts with '#' are comments.
// A name holding one of those characters (or empty) cannot be written as a field, so the
// writer asks lockable_name first; what it writes reads back as written
// (tests/fuzz/lock_line_fuzz.cpp).
#pragma once

#include <string>
#include <string_view>
#include <variant>

namespace gate::config {

// Whether `c` separates a line's fields: the characters std::isspace takes in the C locale.
constexpr bool is_lock_separator(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Whether `name` can be a field of a line: not empty, no separator.
bool lockable_name(std::string_view name);

struct lock_entry {
    std::string upstream, tool, digest;
    bool operator==(const lock_entry&) const = default;
};

// Whether `e` can be written as a line that reads back as `e`: both names lockable, the
// upstream's not starting with '#' (upstream ids are slugs), the digest a SHA-256 one.
bool lockable(const lock_entry& e);

// The line of one lockable entry (no line end).
std::string lock_line(const lock_entry& e);

struct lock_comment { // a blank line or a comment
    bool operator==(const lock_comment&) const = default;
};

// A line's entry (a trailing CR of a CRLF file is a separator like any), or why it is not one.
std::variant<lock_entry, lock_comment, std::string> read_lock_line(std::string_view line);

} // namespace gate::config
