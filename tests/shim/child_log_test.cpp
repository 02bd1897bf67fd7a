#include "shim/child_log.hpp"

#include <gtest/gtest.h>
#include <memory>
#include <regex>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sstream>
#include <string>
#include <vector>

using gate::shim::child_log;
using gate::shim::shim_metrics;
using gate::shim::stderr_limits;
using namespace std::chrono_literals;

namespace {

// The log lines written while it lives (the default logger, swapped for one into a string).
class captured_log {
public:
    captured_log() : previous_(spdlog::default_logger()) {
        auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(out_);
        sink->set_pattern("%v");
        auto logger = std::make_shared<spdlog::logger>("child_log_test", sink);
        logger->set_level(spdlog::level::info);
        spdlog::set_default_logger(logger);
    }
    ~captured_log() { spdlog::set_default_logger(previous_); }
    captured_log(const captured_log&) = delete;
    captured_log& operator=(const captured_log&) = delete;

    std::vector<std::string> lines() const {
        std::vector<std::string> all;
        std::istringstream in(out_.str());
        for (std::string l; std::getline(in, l);)
            all.push_back(l);
        return all;
    }
    std::size_t count(const std::string& part) const {
        std::size_t n = 0;
        for (const auto& l : lines())
            n += l.find(part) != std::string::npos;
        return n;
    }
    // The sum of the counts in the reports matching `re` (its first group).
    std::uint64_t reported(const std::regex& re) const {
        std::uint64_t n = 0;
        std::smatch m;
        for (const auto& l : lines())
            if (std::regex_search(l, m, re))
                n += std::stoull(m[1]);
        return n;
    }

private:
    std::ostringstream out_;
    std::shared_ptr<spdlog::logger> previous_;
};

// A series' value in the exposition text; -1 when it is absent.
double series(const shim_metrics& m, const std::string& name_and_labels) {
    std::istringstream in(m.serialize());
    for (std::string l; std::getline(in, l);)
        if (l.rfind(name_and_labels + " ", 0) == 0)
            return std::stod(l.substr(name_and_labels.size() + 1));
    return -1;
}

const std::string dropped = R"(gate_stdio_messages_dropped_total{reason="not_json_rpc"})";
const std::regex stdout_report(R"((\d+) non-JSON-RPC stdout lines? suppressed)");
const std::regex stderr_report(R"((\d+) stderr lines? suppressed)");

} // namespace

TEST(ChildLog, EveryStrayStdoutLineIsCountedAndEitherLoggedOrReported) {
    captured_log log;
    shim_metrics stats(4);
    EXPECT_EQ(series(stats, dropped), 0); // exported from the start
    EXPECT_EQ(series(stats, "gate_stdio_stdout_lines_suppressed_total"), 0);
    auto t0 = child_log::time_point{} + 1h;
    child_log child("1a2b3c4d", stderr_limits{}, stats, t0);
    for (int i = 0; i < 5'000; ++i)
        child.stray_stdout_line("banner", i % 2 == 0, t0);
    // One second later, ten more fit.
    for (int i = 0; i < 20; ++i)
        child.stray_stdout_line("banner", false, t0 + 1s);
    child.ended();

    auto logged = log.count("session 1a2b3c4d: the server wrote a line that is not JSON");
    EXPECT_EQ(logged, 110u);
    EXPECT_EQ(log.count("that is not JSON-RPC, dropped: banner"), 50u); // the burst's even ones
    EXPECT_EQ(log.reported(stdout_report), 5'020u - 110u);
    EXPECT_EQ(series(stats, dropped), 5'020);
    EXPECT_EQ(series(stats, "gate_stdio_stdout_lines_suppressed_total"), 5'020 - 110);
}

TEST(ChildLog, EachPipeHasABucketOfItsOwn) {
    captured_log log;
    shim_metrics stats(4);
    auto t0 = child_log::time_point{};
    child_log child("1a2b3c4d", stderr_limits{}, stats, t0);
    for (int i = 0; i < 1'000; ++i)
        child.stray_stdout_line("noise", false, t0);
    // The stdout flood took nothing from stderr's burst.
    for (int i = 0; i < 100; ++i)
        child.stderr_line("why it failed", 13, t0);
    EXPECT_EQ(log.count("session 1a2b3c4d stderr: why it failed"), 100u);
    EXPECT_EQ(series(stats, "gate_stdio_stderr_lines_suppressed_total"), 0);
    child.stderr_line("one too many", 12, t0);
    child.ended();
    EXPECT_EQ(log.reported(stderr_report), 1u);
    EXPECT_EQ(log.reported(stdout_report), 900u);
    EXPECT_EQ(series(stats, "gate_stdio_stderr_lines_suppressed_total"), 1);
    EXPECT_EQ(series(stats, "gate_stdio_stdout_lines_suppressed_total"), 900);
}

TEST(ChildLog, AStrayLineIsLoggedClippedWithItsControlCharactersEscaped) {
    captured_log log;
    shim_metrics stats(4);
    auto t0 = child_log::time_point{};
    child_log child("1a2b3c4d", stderr_limits{}, stats, t0);
    child.stray_stdout_line("\x1b[2K\rforged line\x07", false, t0);
    child.stray_stdout_line(std::string(5'000, 'x'), false, t0);
    auto lines = log.lines();
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "session 1a2b3c4d: the server wrote a line that is not JSON, dropped: "
                        "\\x1b[2K\\x0dforged line\\x07");
    EXPECT_NE(lines[1].find(std::string(1'024, 'x') + "... (5000 bytes)"), std::string::npos);
    EXPECT_LT(lines[1].size(), 1'200u);
}

TEST(ChildLog, AQuietChildsHeldBackLinesAreReportedByTheSweep) {
    captured_log log;
    shim_metrics stats(4);
    auto t0 = child_log::time_point{};
    child_log child("1a2b3c4d", stderr_limits{}, stats, t0);
    for (int i = 0; i < 300; ++i)
        child.stray_stdout_line("noise", false, t0);
    EXPECT_EQ(log.reported(stdout_report), 1u); // at once, when holding back starts
    child.sweep(t0 + 5s);
    EXPECT_EQ(log.reported(stdout_report), 1u); // not before `report_every`
    child.sweep(t0 + 10s);
    EXPECT_EQ(log.reported(stdout_report), 200u);
    child.ended();
    EXPECT_EQ(log.reported(stdout_report), 200u); // nothing left
}
