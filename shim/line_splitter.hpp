// Newline-delimited framing of a child's stdout (MCP stdio transport): bytes in, complete
// lines out. A line longer than the cap is a framing failure: the session cannot know where
// the next message starts without buffering without bound.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gate::shim {

class line_splitter {
public:
    explicit line_splitter(std::size_t max_line) : max_line_(max_line) {}

    // Appends the completed lines (without "\n" or a trailing "\r"; empty lines skipped) to
    // `out`. False once a line has exceeded the cap; nothing more is produced after that.
    bool feed(std::string_view bytes, std::vector<std::string>& out);
    bool overflowed() const { return overflowed_; }

private:
    std::size_t max_line_;
    std::string partial_;
    bool overflowed_ = false;
};

// One message as a stdio line: CR and LF can appear in JSON text only as whitespace between
// tokens, so turning them into spaces keeps the message intact and on one line.
std::string to_stdio_line(std::string_view json_text);

} // namespace gate::shim
