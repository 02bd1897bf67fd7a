// Retention's configuration (`retention` in gate-hooks' document: parse_settings), its cutoff,
// and its series in /metrics: the defaults, values in range taken, every bad value refused
// with the member named.
#include "hooks/hooks_metrics.hpp"
#include "hooks/retention.hpp"
#include "hooks/settings.hpp"

#include <gtest/gtest.h>

using namespace gate::hooks;
using namespace std::chrono_literals;

namespace {

// A valid document with `retention` as given (JSON text), or none.
std::variant<settings, std::string> retention_doc(const std::string& retention) {
    std::string doc = R"({"tokens": [{"organization": "a", "token": "0123456789abcdef"}])";
    if (!retention.empty())
        doc += R"(, "retention": )" + retention;
    return parse_settings(doc + "}");
}

std::string retention_refusal(const std::string& retention) {
    auto r = retention_doc(retention);
    if (auto* why = std::get_if<std::string>(&r))
        return *why;
    return "(taken)";
}

} // namespace

TEST(retention_config, defaults_keep_thirty_days_and_sweep_every_ten_minutes) {
    auto s = std::get<settings>(retention_doc(""));
    EXPECT_EQ(s.retention.days, 30);
    EXPECT_EQ(s.retention.sweep_interval, 600000ms);
    auto empty = std::get<settings>(retention_doc("{}"));
    EXPECT_EQ(empty.retention.days, 30);
}

TEST(retention_config, values_in_range_are_taken) {
    auto s = std::get<settings>(retention_doc(R"({"days": 90, "sweepIntervalMs": 1000})"));
    EXPECT_EQ(s.retention.days, 90);
    EXPECT_EQ(s.retention.sweep_interval, 1000ms);
    EXPECT_EQ(std::get<settings>(retention_doc(R"({"days": 1})")).retention.days, 1);
    EXPECT_EQ(std::get<settings>(retention_doc(R"({"days": 3650})")).retention.days, 3650);
    EXPECT_EQ(std::get<settings>(retention_doc(R"({"sweepIntervalMs": 86400000})"))
                  .retention.sweep_interval,
              86400000ms);
}

TEST(retention_config, bad_values_are_refused_naming_the_member) {
    const std::string days = "/retention/days: must be between 1 and 3650";
    EXPECT_EQ(retention_refusal(R"({"days": 0})"), days);
    EXPECT_EQ(retention_refusal(R"({"days": -30})"), days);
    EXPECT_EQ(retention_refusal(R"({"days": 3651})"), days);
    EXPECT_EQ(retention_refusal(R"({"days": 1.5})"), "/retention/days: must be an integer");
    EXPECT_EQ(retention_refusal(R"({"days": "30"})"), "/retention/days: must be an integer");
    EXPECT_EQ(retention_refusal(R"({"days": null})"), "/retention/days: must be an integer");
    const std::string interval = "/retention/sweepIntervalMs: must be between 1000 and 86400000";
    EXPECT_EQ(retention_refusal(R"({"sweepIntervalMs": 999})"), interval);
    EXPECT_EQ(retention_refusal(R"({"sweepIntervalMs": 86400001})"), interval);
    EXPECT_EQ(retention_refusal(R"({"hours": 12})"), "/retention/hours: unknown member");
    EXPECT_EQ(retention_refusal("30"), "/retention: must be an object");
    EXPECT_EQ(retention_refusal("false"), "/retention: must be an object");
}

TEST(retention_config, the_cutoff_is_now_minus_the_days) {
    const clock_time now{std::chrono::hours(520000)};
    EXPECT_EQ(retention_cutoff(now, {30, 600000ms}), now - std::chrono::hours(720));
    EXPECT_EQ(retention_cutoff(now, {1, 600000ms}), now - std::chrono::hours(24));
}

TEST(retention_config, what_sweeps_deleted_is_counted_by_kind) {
    hooks_metrics m;
    auto text = m.serialize();
    EXPECT_NE(text.find("gate_hooks_retention_deleted_total{kind=\"deliveries\"} 0"),
              std::string::npos)
        << text;
    m.pruned(3, 7, 2);
    m.pruned(1, 1, 0);
    text = m.serialize();
    EXPECT_NE(text.find("gate_hooks_retention_deleted_total{kind=\"deliveries\"} 4"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("gate_hooks_retention_deleted_total{kind=\"attempts\"} 8"),
              std::string::npos);
    EXPECT_NE(text.find("gate_hooks_retention_deleted_total{kind=\"events\"} 2"),
              std::string::npos);
}
