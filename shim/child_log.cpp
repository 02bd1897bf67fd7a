#include "shim/child_log.hpp"

#include <spdlog/spdlog.h>

namespace gate::shim {

child_log::child_log(std::string tag, const stderr_limits& limits, shim_metrics& stats,
                     time_point now)
    : tag_(std::move(tag)), stats_(stats), stderr_(limits, now), stdout_(limits, now) {}

void child_log::stderr_line(std::string_view line, std::size_t length, time_point now) {
    auto v = stderr_.line(now);
    if (!v.log)
        stats_.stderr_suppressed(1);
    if (v.report)
        report_stderr(v.report);
    if (v.log)
        spdlog::info("session {} stderr: {}", tag_,
                     loggable_line(line, length, stderr_.limits().max_line_bytes));
}

void child_log::stray_stdout_line(std::string_view line, bool json, time_point now) {
    stats_.messages_dropped("not_json_rpc", 1);
    auto v = stdout_.line(now);
    if (!v.log)
        stats_.stdout_suppressed(1);
    if (v.report)
        report_stdout(v.report);
    if (v.log)
        spdlog::warn("session {}: the server wrote a line that is not JSON{}, dropped: {}", tag_,
                     json ? "-RPC" : "",
                     loggable_line(line, line.size(), stdout_.limits().max_line_bytes));
}

void child_log::sweep(time_point now) {
    if (auto n = stderr_.due(now))
        report_stderr(n);
    if (auto n = stdout_.due(now))
        report_stdout(n);
}

void child_log::ended() {
    if (auto n = stderr_.rest())
        report_stderr(n);
    if (auto n = stdout_.rest())
        report_stdout(n);
}

void child_log::report_stderr(std::uint64_t lines) const {
    const auto& l = stderr_.limits();
    spdlog::warn("session {}: {} stderr line{} suppressed (the log takes {} a second, bursts of "
                 "{})",
                 tag_, lines, lines == 1 ? "" : "s", l.lines_per_second, l.burst);
}

void child_log::report_stdout(std::uint64_t lines) const {
    const auto& l = stdout_.limits();
    spdlog::warn("session {}: {} non-JSON-RPC stdout line{} suppressed (the log takes {} a "
                 "second, bursts of {})",
                 tag_, lines, lines == 1 ? "" : "s", l.lines_per_second, l.burst);
}

} // namespace gate::shim
