#include "actors/budget_ledger.hpp"

#include <vector>

namespace gate {

namespace chr = std::chrono;

wall_time period_end(std::string_view period, wall_time now) {
    auto day = chr::floor<chr::days>(now);
    if (period == "hour")
        return chr::floor<chr::hours>(now) + chr::hours(1);
    if (period == "day")
        return day + chr::days(1);
    if (period == "week") {
        // ISO weeks start on Monday.
        auto since_monday = chr::weekday(day) - chr::Monday;
        return day - since_monday + chr::days(7);
    }
    chr::year_month_day ymd(day);
    auto next = chr::year_month{ymd.year(), ymd.month()} + chr::months(1);
    return chr::sys_days(next / 1);
}

budget_ledger::account& budget_ledger::current(const std::string& key, const std::string& period,
                                               wall_time now) {
    auto& a = accounts_[key];
    // A new period, or a reload that changed this account's period: it starts afresh.
    if (now >= a.ends || a.period != period) {
        a.period = period;
        a.ends = period_end(period, now);
        a.used = 0;
    }
    return a;
}

std::optional<budget_ledger::exhausted> budget_ledger::charge(std::span<const account_ref> accounts,
                                                              wall_time now) {
    std::vector<account*> to_charge;
    for (const auto& ref : accounts) {
        if (!ref.budget)
            continue;
        auto& a = current(ref.key, ref.budget->period, now);
        if (a.used >= ref.budget->upstream_calls)
            return exhausted{ref.key, ref.budget->upstream_calls, a.period, a.ends};
        to_charge.push_back(&a);
    }
    for (auto* a : to_charge)
        ++a->used;
    return std::nullopt;
}

std::int64_t budget_ledger::used(const std::string& key, wall_time now) {
    auto it = accounts_.find(key);
    return it == accounts_.end() || now >= it->second.ends ? 0 : it->second.used;
}

} // namespace gate
