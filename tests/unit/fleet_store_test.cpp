// The fleet's shared store against a real Redis 7 (Debian's redis-tools) on a free loopback
// port: its scripts' decisions (a window's batches, a budget's reservations, a breaker's
// count), single-use claims, ended sessions, the fleet's cursor key at start, and the
// fail-open path when the store is gone (counted; then not even tried while it rests).
#include "gateway/fleet/fleet_store.hpp"
#include "gateway/operations/metrics.hpp"
#include "tests/support/redis_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/this_coro.hpp>
#include <gtest/gtest.h>

namespace asio = boost::asio;
using namespace gate::gateway;
using namespace std::chrono_literals;
using gate::test::free_port;
using gate::test::redis_server;

namespace {

gate::transport::redis_endpoint store_endpoint(std::uint16_t port, int db = 0) {
    auto ep = gate::transport::parse_redis_url("redis://127.0.0.1:" + std::to_string(port) + "/" +
                                               std::to_string(db));
    return std::get<gate::transport::redis_endpoint>(ep);
}

// Runs `body(store)` on an io_context until it is done.
template <class Body> void with_store(std::uint16_t port, metrics& stats, Body body) {
    asio::io_context io;
    auto store = std::make_shared<fleet_store>(io.get_executor(), store_endpoint(port), stats);
    bool done = false;
    asio::co_spawn(io, body(store), [&](std::exception_ptr e) {
        done = true;
        store->close();
        if (e)
            std::rethrow_exception(e);
    });
    io.run();
    EXPECT_TRUE(done);
}

bool has_line(const std::string& text, const std::string& line) {
    return text.find(line + "\n") != std::string::npos;
}

} // namespace

TEST(FleetStore, WindowBatchesAreExactForLowLimitsAndASixteenthForHighOnes) {
    auto port = free_port();
    redis_server server(port);
    metrics stats;
    with_store(port, stats, [](std::shared_ptr<fleet_store> s) -> asio::awaitable<void> {
        // A limit of 3: one slot per batch, then none, with the wait until the oldest leaves.
        for (int i = 0; i < 3; ++i) {
            auto b = co_await s->take_window("low", 3);
            EXPECT_TRUE(b && b->taken == 1);
        }
        auto full = co_await s->take_window("low", 3);
        EXPECT_TRUE(full);
        if (full) {
            EXPECT_EQ(full->taken, 0);
            EXPECT_GT(full->wait.count(), 58'000);
            EXPECT_LE(full->wait.count(), 60'000);
        }
        // A limit of 1000: 62 (1000/16), then 58 (938/16); a first batch (no rate measured yet)
        // 64 at most.
        auto first = co_await s->take_window("high", 1000);
        auto second = co_await s->take_window("high", 1000);
        EXPECT_TRUE(first && first->taken == 62);
        EXPECT_TRUE(second && second->taken == 58);
        auto huge = co_await s->take_window("huge", 1'000'000);
        EXPECT_TRUE(huge && huge->taken == 64);
        if (huge) {
            EXPECT_GT(huge->until, std::chrono::steady_clock::now());
            EXPECT_LE(huge->until, std::chrono::steady_clock::now() + 1000ms);
        }
        // Sized by demand: what 1,000 calls a second spend before the second ends (a quarter
        // more, and the asking call), within how far the batch may grow.
        auto busy = co_await s->take_window("demand", 1'000'000'000, {1000, 1'000'000});
        EXPECT_TRUE(busy && busy->taken >= 2 && busy->taken <= 1 + 1250);
        auto grown = co_await s->take_window("demand", 1'000'000'000, {0, 256});
        EXPECT_TRUE(grown && grown->taken == 256); // not measured: as far as it may grow
        auto quiet = co_await s->take_window("demand", 1'000'000'000, {1, 64});
        EXPECT_TRUE(quiet && quiet->taken >= 1 && quiet->taken <= 3);
    });
}

TEST(FleetStore, BudgetReservationsAddUpToTheAllowanceExactly) {
    auto port = free_port();
    redis_server server(port);
    metrics stats;
    with_store(port, stats, [](std::shared_ptr<fleet_store> s) -> asio::awaitable<void> {
        auto ends = std::chrono::system_clock::now() + 1h;
        std::int64_t total = 0;
        std::vector<std::int64_t> sizes;
        for (;;) {
            auto got = co_await s->reserve_budget("server:day", 40, ends);
            EXPECT_TRUE(got);
            if (!got || *got == 0)
                break;
            sizes.push_back(*got);
            total += *got;
        }
        EXPECT_EQ(total, 40);
        EXPECT_EQ(sizes.front(), 2); // 40/16
        EXPECT_EQ(sizes.back(), 1);  // near the end, one at a time
        // Another period is another counter.
        auto next = co_await s->reserve_budget("server:day", 40, ends + 24h);
        EXPECT_TRUE(next && *next == 2);
    });
}

TEST(FleetStore, BreakerFailuresAreCountedUntilASuccessAndOpeningsLastTheirRest) {
    auto port = free_port();
    redis_server server(port);
    metrics stats;
    with_store(port, stats, [](std::shared_ptr<fleet_store> s) -> asio::awaitable<void> {
        EXPECT_EQ(co_await s->breakers().failure("alpha"), 1);
        EXPECT_EQ(co_await s->breakers().failure("alpha"), 2);
        EXPECT_EQ(co_await s->breakers().failure("beta"), 1);
        s->breakers().success("alpha");
        EXPECT_EQ(co_await s->breakers().failure("alpha"), 1); // the success reset it (in order)
        s->breakers().opened("beta", 30s);
        auto open = co_await s->breakers().open_for({"alpha", "beta"});
        EXPECT_TRUE(open);
        if (open) {
            EXPECT_EQ((*open)[0].count(), 0);
            EXPECT_GT((*open)[1].count(), 29'000);
            EXPECT_LE((*open)[1].count(), 30'000);
        }
    });
}

TEST(FleetStore, AClaimIsFirstOnceAndRecordsAreTakenOnce) {
    auto port = free_port();
    redis_server server(port);
    metrics stats;
    with_store(port, stats, [](std::shared_ptr<fleet_store> s) -> asio::awaitable<void> {
        EXPECT_EQ(co_await s->claim_once("jti", "idp\nj-1", 60s), true);
        EXPECT_EQ(co_await s->claim_once("jti", "idp\nj-1", 60s), false);
        EXPECT_EQ(co_await s->claim_once("jti", "idp\nj-2", 60s), true);
        EXPECT_TRUE(co_await s->put("task", "t-1", "owner upstream", 60s));
        auto got = co_await s->get("task", "t-1");
        EXPECT_TRUE(got && *got && **got == "owner upstream");
        auto taken = co_await s->take("task", "t-1");
        EXPECT_TRUE(taken && *taken && **taken == "owner upstream");
        auto gone = co_await s->get("task", "t-1");
        EXPECT_TRUE(gone && !*gone); // answered: no such record
    });
}

TEST(FleetStore, TheFirstValueKeptIsEveryonesAndLivesOnWhileKept) {
    auto port = free_port();
    redis_server server(port);
    metrics stats;
    with_store(port, stats, [port](std::shared_ptr<fleet_store> s) -> asio::awaitable<void> {
        using records = std::vector<std::pair<std::string, std::string>>;
        // Names with the separator's look-alikes stay apart: the upstream id ends at the newline.
        auto first = co_await s->keep_first(
            "pin", records{{"up\nt", "v1"}, {"up\nt:x\ny", "w1"}, {"up-2\nt", "z1"}}, 60s);
        EXPECT_TRUE(first && *first == (std::vector<std::string>{"v1", "w1", "z1"}));
        auto second =
            co_await s->keep_first("pin", records{{"up\nt", "v2"}, {"up\nnew", "n2"}}, 60s);
        EXPECT_TRUE(second && *second == (std::vector<std::string>{"v1", "n2"}));
        auto none = co_await s->keep_first("pin", records{}, 60s);
        EXPECT_TRUE(none && none->empty());
        auto held = co_await s->get("pin", "up\nt:x\ny");
        EXPECT_TRUE(held && *held && **held == "w1");
        // Each keep gives the records another lifetime, whoever wrote them first.
        auto raw = std::make_shared<gate::transport::redis_client>(
            co_await asio::this_coro::executor, store_endpoint(port));
        auto life = [&]() -> asio::awaitable<std::int64_t> {
            auto r = co_await raw->command({"PTTL", "gate:pin:up\nt"});
            co_return std::holds_alternative<gate::transport::redis_value>(r)
                ? std::get<gate::transport::redis_value>(r).integer
                : -100;
        };
        auto before = co_await life();
        EXPECT_GT(before, 0);
        EXPECT_LE(before, 60'000);
        co_await s->keep_first("pin", records{{"up\nt", "v3"}}, 24h);
        EXPECT_GT(co_await life(), 3'600'000);
        raw->close();
    });
}

TEST(FleetStore, EndedSessionsAreAnnouncedOnceEach) {
    auto port = free_port();
    redis_server server(port);
    metrics stats;
    with_store(port, stats, [](std::shared_ptr<fleet_store> s) -> asio::awaitable<void> {
        co_await s->put("session", "s-1", "{}", 60s);
        s->sessions().ended("s-1");
        auto first = co_await s->sessions().ended_after(0);
        EXPECT_TRUE(first && first->ids == std::vector<std::string>{"s-1"});
        auto record = co_await s->get("session", "s-1");
        EXPECT_TRUE(record && !*record); // its record is gone with it
        if (first) {
            auto again = co_await s->sessions().ended_after(first->latest);
            EXPECT_TRUE(again && again->ids.empty());
        }
    });
}

TEST(FleetStore, WithoutTheStoreEveryOperationFailsOpenAndIsCounted) {
    auto port = free_port();
    metrics stats;
    std::optional<redis_server> server(std::in_place, port);
    with_store(port, stats, [&](std::shared_ptr<fleet_store> s) -> asio::awaitable<void> {
        EXPECT_TRUE(co_await s->take_window("global", 10));
        server.reset(); // killed
        EXPECT_FALSE(co_await s->take_window("global", 10));
        EXPECT_FALSE(s->up());
        EXPECT_FALSE(
            co_await s->reserve_budget("server:day", 10, std::chrono::system_clock::now() + 1h));
        EXPECT_FALSE(co_await s->claim_once("jti", "x", 1s)); // resting: not even tried
    });
    auto text = stats.serialize();
    EXPECT_TRUE(has_line(text, "gate_shared_state_degraded_total{state=\"rate_limit\"} 1")) << text;
    EXPECT_TRUE(has_line(text, "gate_shared_state_degraded_total{state=\"jti\"} 1")) << text;
    EXPECT_TRUE(has_line(text, "gate_budget_degraded_total 1")) << text;
    EXPECT_TRUE(has_line(text, "gate_shared_state_up 0")) << text;
}

// Every io thread has a store of its own (docs/io-threads.md): the series says the store
// answers only while no thread's connection to it is down, whichever came back last.
TEST(FleetStore, TheStoreIsUpOnlyWhileNoThreadsConnectionIsDown) {
    metrics stats;
    EXPECT_EQ(stats.serialize().find("gate_shared_state_up"), std::string::npos)
        << "shown only with a store";
    stats.shared_store(metrics::store_news::made);
    stats.shared_store(metrics::store_news::made);
    EXPECT_TRUE(has_line(stats.serialize(), "gate_shared_state_up 1"));
    stats.shared_store(metrics::store_news::down);
    stats.shared_store(metrics::store_news::down);
    stats.shared_store(metrics::store_news::back); // one thread's store answers again
    EXPECT_TRUE(has_line(stats.serialize(), "gate_shared_state_up 0")) << "the other's does not";
    stats.shared_store(metrics::store_news::back);
    EXPECT_TRUE(has_line(stats.serialize(), "gate_shared_state_up 1"));
    stats.shared_store(metrics::store_news::down);
    stats.shared_store(
        metrics::store_news::made); // a store made meanwhile does not hide the outage
    EXPECT_TRUE(has_line(stats.serialize(), "gate_shared_state_up 0"));
}

TEST(JoinFleet, EveryInstanceTakesTheSameCursorKeyAndADeadStoreIsAnError) {
    auto port = free_port();
    {
        redis_server server(port);
        auto first = join_fleet(store_endpoint(port, 4));
        auto second = join_fleet(store_endpoint(port, 4));
        ASSERT_TRUE(std::holds_alternative<fleet_membership>(first));
        ASSERT_TRUE(std::holds_alternative<fleet_membership>(second));
        EXPECT_EQ(std::get<fleet_membership>(first).cursor_key,
                  std::get<fleet_membership>(second).cursor_key);
        // Another database is another fleet.
        auto other = join_fleet(store_endpoint(port, 5));
        ASSERT_TRUE(std::holds_alternative<fleet_membership>(other));
        EXPECT_NE(std::get<fleet_membership>(other).cursor_key,
                  std::get<fleet_membership>(first).cursor_key);
    }
    auto dead = join_fleet(store_endpoint(port));
    ASSERT_TRUE(std::holds_alternative<std::string>(dead));
    EXPECT_NE(std::get<std::string>(dead).find("redis://127.0.0.1:" + std::to_string(port)),
              std::string::npos)
        << std::get<std::string>(dead);
}
