// One flight at a time on one io thread: callers arriving while a flight is out wait for it to
// land and are told so (they decide again from what it left); a flight that throws lets a
// waiter fly next; a memoized flight reuses what landed. Driven by timers the test cancels, so
// nothing waits on real time.
#include "transport/io/ask_flight.hpp"
#include "transport/io/memoized_flight.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>
#include <stdexcept>
#include <vector>

namespace asio = boost::asio;
using gate::transport::ask_flight;
using gate::transport::memoized_flight;

namespace {

// A flight that lands when the test cancels `gate` (or throws, when `fail` is set).
asio::awaitable<void> hold(asio::steady_timer& gate, int& flights, bool fail) {
    ++flights;
    boost::system::error_code ec;
    co_await gate.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (fail)
        throw std::runtime_error("the ask failed");
}

} // namespace

TEST(ask_flight, callers_arriving_during_a_flight_wait_for_it_and_do_not_fly) {
    asio::io_context io;
    asio::steady_timer gate(io, asio::steady_timer::time_point::max());
    ask_flight flight;
    int flights = 0;
    std::vector<bool> flew;
    for (int i = 0; i < 3; ++i)
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                flew.push_back(
                    co_await flight.run_or_wait([&] { return hold(gate, flights, false); }));
            },
            asio::detached);
    io.poll();
    EXPECT_EQ(flights, 1);
    EXPECT_TRUE(flew.empty()); // everyone is waiting for the one flight
    gate.cancel();
    io.poll();
    EXPECT_EQ(flew, (std::vector<bool>{true, false, false}));
    // Landed: the next caller flies again.
    io.restart(); // the context stopped when it ran out of work
    asio::steady_timer again(io, asio::steady_timer::time_point::max());
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            flew.push_back(
                co_await flight.run_or_wait([&] { return hold(again, flights, false); }));
        },
        asio::detached);
    io.poll();
    again.cancel();
    io.poll();
    EXPECT_EQ(flights, 2);
    EXPECT_EQ(flew.back(), true);
}

TEST(ask_flight, a_flight_that_throws_releases_its_waiters) {
    asio::io_context io;
    asio::steady_timer gate(io, asio::steady_timer::time_point::max());
    ask_flight flight;
    int flights = 0;
    int threw = 0;
    std::vector<bool> flew;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            try {
                co_await flight.run_or_wait([&] { return hold(gate, flights, true); });
            } catch (const std::runtime_error&) {
                ++threw;
            }
        },
        asio::detached);
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            flew.push_back(co_await flight.run_or_wait([&] { return hold(gate, flights, false); }));
        },
        asio::detached);
    io.poll();
    gate.cancel();
    io.poll();
    EXPECT_EQ(threw, 1);
    EXPECT_EQ(flew, std::vector<bool>{false}); // released, to decide again
    EXPECT_EQ(flights, 1);
}

TEST(memoized_flight, one_flight_serves_every_caller_and_its_result_is_reused) {
    asio::io_context io;
    asio::steady_timer gate(io, asio::steady_timer::time_point::max());
    memoized_flight<int> memo(std::chrono::hours(1));
    int produced = 0;
    std::vector<int> got;
    auto produce = [&]() -> asio::awaitable<int> {
        ++produced;
        boost::system::error_code ec;
        co_await gate.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        co_return 42;
    };
    for (int i = 0; i < 3; ++i)
        asio::co_spawn(
            io, [&]() -> asio::awaitable<void> { got.push_back(co_await memo.get(produce)); },
            asio::detached);
    io.poll();
    gate.cancel();
    io.poll();
    EXPECT_EQ(got, (std::vector<int>{42, 42, 42}));
    io.restart(); // the context stopped when it ran out of work
    asio::co_spawn(
        io, [&]() -> asio::awaitable<void> { got.push_back(co_await memo.get(produce)); },
        asio::detached);
    io.poll();
    EXPECT_EQ(got.size(), 4u); // reused at once: nothing new produced
    EXPECT_EQ(produced, 1);
}
