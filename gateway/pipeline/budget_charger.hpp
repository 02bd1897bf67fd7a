// Budgets of upstream invocations (server, upstream, the caller's tenant) as the io thread
// charges them: stage 6 for each admitted invocation, and the task methods for the upstreams
// they reach. Each account's allowance is spent here from reservations (budget_ledger), so a
// call sends no message; a reservation is taken from the budget source (the fleet's store when
// there is one that answers, else the budget keeper actor).
#pragma once

#include "actors/guards/budget_ledger.hpp"
#include "gateway/pipeline/request_context.hpp"

#include <array>
#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <vector>

namespace gate::gateway {

class budget_source {
public:
    // A reservation of the account's allowance in the period that holds `now` (0: none is
    // left); nullopt when nobody answered.
    virtual boost::asio::awaitable<std::optional<std::int64_t>>
    reserve(const actors::budget_ledger::account_ref& account, actors::wall_time now) = 0;

protected:
    ~budget_source() = default;
};

// One invocation charged to the budgets it draws on (the task methods' fan-outs).
class invocation_charges {
public:
    // Charges one invocation of `upstream` for `ctx` to every budget it draws on: the
    // exhausted one, if any (nothing charged then). Nobody answering a reservation charges
    // nothing and refuses nothing: gate's fault is not the client's.
    virtual boost::asio::awaitable<std::optional<actors::budget_ledger::exhausted>>
    charge(const request_context& ctx, std::size_t upstream) = 0;

protected:
    ~invocation_charges() = default;
};

class budget_charger final : public invocation_charges {
public:
    explicit budget_charger(budget_source& source) : source_(source) {}

    boost::asio::awaitable<std::optional<actors::budget_ledger::exhausted>>
    charge(const request_context& ctx, std::size_t upstream) override;
    // The same, decided from what is reserved already; nullopt when an allowance must be
    // reserved first (charge then). Nothing is charged then.
    struct charged_now {
        std::optional<actors::budget_ledger::exhausted> spent;
    };
    std::optional<charged_now> charge_now(const request_context& ctx, std::size_t upstream);
    // Each budget as this instance's reservations left it (the metrics, at a scrape).
    std::vector<actors::budget_ledger::standing> standings(actors::wall_time now) const {
        return ledger_.standings(now);
    }

private:
    using accounts = std::array<actors::budget_ledger::account_ref, 3>;
    static std::size_t accounts_of(const request_context& ctx, std::size_t upstream,
                                   accounts& refs);

    actors::budget_ledger ledger_;
    budget_source& source_;
};

// The -32044 answer for an exhausted budget, naming its reset instant, with its outcome and
// error on `ctx`.
boost::json::object budget_refusal(request_context& ctx, const actors::budget_ledger::exhausted& e);

} // namespace gate::gateway
