#include "actors/guards/budget_ledger.hpp"

#include <algorithm>
#include <vector>

namespace gate::actors {

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
        a.reserved = 0;
        a.fleet_spent = false;
    }
    return a;
}

std::vector<budget_ledger::account_ref>
budget_ledger::unreserved(std::span<const account_ref> accounts, wall_time now) {
    std::vector<account_ref> out;
    for (const auto& ref : accounts) {
        if (!ref.budget)
            continue;
        auto& a = current(ref.key, ref.budget->period, now);
        if (a.allowance != ref.budget->upstream_calls) {
            // A reload changed the allowance: what the fleet said of the old one is moot.
            a.allowance = ref.budget->upstream_calls;
            a.fleet_spent = false;
        }
        if (a.reserved == 0 && !a.fleet_spent)
            out.push_back(ref);
    }
    return out;
}

void budget_ledger::reserve(const account_ref& ref, std::int64_t n, wall_time now) {
    auto& a = current(ref.key, ref.budget->period, now);
    a.allowance = ref.budget->upstream_calls;
    if (n > 0)
        a.reserved += n;
    else
        a.fleet_spent = true;
}

std::optional<budget_ledger::exhausted>
budget_ledger::charge_reserved(std::span<const account_ref> accounts, wall_time now) {
    std::vector<account*> to_charge;
    for (const auto& ref : accounts) {
        if (!ref.budget)
            continue;
        auto& a = current(ref.key, ref.budget->period, now);
        if (a.reserved <= 0)
            return exhausted{ref.key, ref.budget->upstream_calls, a.period, a.ends};
        to_charge.push_back(&a);
    }
    for (auto* a : to_charge) {
        --a->reserved;
        ++a->used;
    }
    return std::nullopt;
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

std::int64_t budget_ledger::grant(const account_ref& ref, wall_time now) {
    auto& a = current(ref.key, ref.budget->period, now);
    auto room = ref.budget->upstream_calls - a.used;
    if (room <= 0)
        return 0;
    auto n = std::clamp<std::int64_t>(room / 16, 1, max_grant);
    a.used += n;
    return n;
}

void budget_ledger::count(const account_ref& ref, std::int64_t n, wall_time now) {
    current(ref.key, ref.budget->period, now).used += n;
}

std::vector<budget_ledger::standing> budget_ledger::standings(wall_time now) const {
    std::vector<standing> out;
    for (const auto& [key, a] : accounts_)
        if (now < a.ends && a.allowance > 0)
            out.push_back({key, a.allowance, a.used + a.reserved, a.used, a.fleet_spent});
    return out;
}

std::int64_t budget_ledger::used(const std::string& key, wall_time now) {
    auto it = accounts_.find(key);
    return it == accounts_.end() || now >= it->second.ends ? 0 : it->second.used;
}

} // namespace gate::actors
