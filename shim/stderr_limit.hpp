// How much of a child's stderr reaches gate-stdio's log. A server may write to stderr without
// pause (200,000 lines, 29 MB in one session, issue 32); logged as it comes, that fills the
// disk and drowns the shim's own lines. Each child gets a token bucket (a burst, then a
// steady rate); the lines it holds back are counted, and the count is reported at most every
// `report_every` and once more when the child ends. Plain C++ with time passed in. A session's
// child has one for its stderr and one for its stdout lines that are not JSON-RPC
// (`child_log`).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gate::shim {

struct stderr_limits {
    double lines_per_second = 10;
    double burst = 100;
    std::chrono::steady_clock::duration report_every = std::chrono::seconds(10);
    std::size_t max_line_bytes = 1024; // of one line, as logged
};

class stderr_limit {
public:
    using time_point = std::chrono::steady_clock::time_point;

    stderr_limit(const stderr_limits& limits, time_point now);

    struct verdict {
        bool log = false;         // log this line
        std::uint64_t report = 0; // first log that this many lines were held back (0: none)
    };
    // The child wrote a line at `now`.
    verdict line(time_point now);
    // Held-back lines whose report is due at `now` (0: none due): a quiet child's tail.
    std::uint64_t due(time_point now);
    // Every held-back line not reported yet: the child ended.
    std::uint64_t rest();

    const stderr_limits& limits() const { return limits_; }

private:
    stderr_limits limits_;
    double tokens_;
    time_point refilled_;
    time_point reported_;
    bool reported_once_ = false;
    std::uint64_t held_back_ = 0;
};

// A line as the log shows it: at most `max_bytes` of it (never splitting a UTF-8 sequence),
// control characters escaped (a child must not forge or erase log lines with them), and, when
// cut, its full length (`length`: the line as written, at least `line.size()`).
std::string loggable_line(std::string_view line, std::size_t length, std::size_t max_bytes);

} // namespace gate::shim
