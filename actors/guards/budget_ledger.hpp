// Consumption budgets (spec: Budget lifecycle): allowances of upstream invocations per UTC
// calendar period (hour, day, week from Monday, month) for the server, each upstream and each
// tenant, as plain C++ with time passed in. A charge goes to every account a call draws on,
// all or none: refused by the first exhausted one, which names its reset instant.
#pragma once

#include "config/model.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gate::actors {

using wall_time = std::chrono::system_clock::time_point;

// The end of the UTC calendar period of `period` ("hour", "day", "week", "month") that holds
// `now`: when an allowance starts afresh.
wall_time period_end(std::string_view period, wall_time now);

class budget_ledger {
public:
    // One account a call draws on: its key ("server", "upstream alpha", "tenant acme"), which
    // is also how the refusal names it, and its budget as configured now.
    struct account_ref {
        std::string key;
        const config::budget* budget;
    };
    struct exhausted {
        std::string key;
        std::int64_t allowance;
        std::string period;
        wall_time resets;
    };

    // Charges one invocation to each account; nullopt when charged, else the exhausted one
    // (nothing is charged then).
    std::optional<exhausted> charge(std::span<const account_ref> accounts, wall_time now);
    // Invocations charged to `key` in its current period.
    std::int64_t used(const std::string& key, wall_time now);

    // Reservations, as the io thread spends them (stage 6): each account's allowance is taken
    // a sixteenth of what is left at a time, from the fleet's store when there is one that
    // answers, else from the budget keeper (grant() below), and spent here without a message.
    //
    // The accounts that need a reservation before a charge: nothing reserved this period,
    // and the fleet not known to have spent it all. Their `ends` is the period's end.
    std::vector<account_ref> unreserved(std::span<const account_ref> accounts, wall_time now);
    // `n` invocations of the account's current period were reserved (0: the allowance is
    // spent; calls are refused until the period ends or the allowance changes).
    void reserve(const account_ref& account, std::int64_t n, wall_time now);
    // Charges one invocation to each account from its reservation, all or none (call it
    // when unreserved() is empty): the exhausted account, or nullopt when charged.
    std::optional<exhausted> charge_reserved(std::span<const account_ref> accounts, wall_time now);

    // The keeper's side (actors/guards/budget_keeper; the shared store's script decides the same
    // way): grants a reservation of an account's allowance in its current period, a sixteenth
    // of what is left, 1 to 64 (0: nothing is left), and counts it as used.
    std::int64_t grant(const account_ref& account, wall_time now);
    // Counts `n` invocations reserved elsewhere (the fleet's store) as used here.
    void count(const account_ref& account, std::int64_t n, wall_time now);
    static constexpr std::int64_t max_grant = 64;

    // Each account as the io thread's reservations left it in its current period (none whose
    // period ended), for the metrics read at a scrape.
    struct standing {
        std::string key;
        std::int64_t allowance = 0; // as of its last reservation
        std::int64_t taken = 0;     // reserved by this instance this period, spent or not
        std::int64_t spent = 0;     // invocations charged here
        bool exhausted = false;     // a reservation found nothing left
    };
    std::vector<standing> standings(wall_time now) const;

private:
    struct account {
        std::string period;
        wall_time ends{};
        std::int64_t used = 0;
        std::int64_t allowance = 0; // as of the last reservation
        std::int64_t reserved = 0;  // of the fleet's allowance, not yet spent
        bool fleet_spent = false;
    };
    account& current(const std::string& key, const std::string& period, wall_time now);

    std::unordered_map<std::string, account> accounts_;
};

} // namespace gate::actors
