// What the tests of gateway/mcp's method classes share (tests/unit/call_routes_test.cpp,
// client_traffic_test.cpp, upstream_traffic_test.cpp): a coroutine run to its end on the test's
// io_context, its fakes suspending as the gateway's services do (stage_rig.hpp).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>
#include <gtest/gtest.h>
#include <optional>
#include <type_traits>

namespace gate::test {

// `a` run on `io` until nothing is left to run; its value (a default one, and a failed
// expectation, when it did not finish).
template <class T> T run_to_end(boost::asio::io_context& io, boost::asio::awaitable<T> a) {
    std::exception_ptr failed;
    bool done = false;
    if constexpr (std::is_void_v<T>) {
        boost::asio::co_spawn(io, std::move(a), [&](std::exception_ptr e) {
            failed = e;
            done = true;
        });
        io.run();
        io.restart();
        if (failed)
            std::rethrow_exception(failed);
        EXPECT_TRUE(done) << "the coroutine finished";
    } else {
        std::optional<T> out;
        boost::asio::co_spawn(io, std::move(a), [&](std::exception_ptr e, T v) {
            failed = e;
            done = true;
            if (!e)
                out.emplace(std::move(v));
        });
        io.run();
        io.restart();
        if (failed)
            std::rethrow_exception(failed);
        EXPECT_TRUE(done) << "the coroutine finished";
        return out ? std::move(*out) : T{};
    }
}

} // namespace gate::test
