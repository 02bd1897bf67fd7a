// What of a child's own writing reaches gate-stdio's log: its stderr lines, and the stdout
// lines that are not JSON-RPC messages (dropped, since no client may see them; a server
// printing a banner or its debug output to the wrong pipe). Either may come without pause, so
// each pipe has a token bucket of its own (`stderr_limit`, the same limits): a server that
// floods its stdout does not silence the stderr lines that say what went wrong, and the
// other way round. Every line is counted; the ones a bucket holds back are reported, at once
// when it starts holding back, then at most every `report_every` (`sweep`), and when the
// child ends (`ended`), so each line is either in the log or in a report. Lines are logged
// clipped, control characters escaped (`loggable_line`). Time is passed in.
#pragma once

#include "shim/metrics.hpp"
#include "shim/stderr_limit.hpp"

#include <string>
#include <string_view>

namespace gate::shim {

class child_log {
public:
    using time_point = stderr_limit::time_point;

    // `tag`: the session's, for every line logged.
    child_log(std::string tag, const stderr_limits& limits, shim_metrics& stats, time_point now);

    // A stderr line: its first bytes, `length` in all.
    void stderr_line(std::string_view line, std::size_t length, time_point now);
    // A stdout line that is not a JSON-RPC message, dropped; `json`: it is JSON at least.
    void stray_stdout_line(std::string_view line, bool json, time_point now);
    // Reports what the buckets held back and is due at `now` (a child gone quiet).
    void sweep(time_point now);
    // The child ended: reports every held-back line left.
    void ended();

private:
    void report_stderr(std::uint64_t lines) const;
    void report_stdout(std::uint64_t lines) const;

    std::string tag_;
    shim_metrics& stats_;
    stderr_limit stderr_, stdout_;
};

} // namespace gate::shim
