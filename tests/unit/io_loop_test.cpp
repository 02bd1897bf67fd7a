#include "gateway/program/io_loop.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <gtest/gtest.h>
#include <thread>

using namespace gate::gateway::program;
using namespace std::chrono_literals;

namespace {

// A chain of handlers, each posting the next, and a timer: the loop runs them all, whether it
// blocks at once or spins first, and returns once the io_context is out of work, as run() does.
// Counted apart: the timer may fire before the chain ends (a slow or sanitized build).
struct ran {
    int chain = 0, timer = 0;
    bool operator==(const ran&) const = default;
};

ran run_chain(std::chrono::microseconds spin) {
    boost::asio::io_context io;
    ran r;
    std::function<void()> next = [&] {
        if (++r.chain < 100)
            boost::asio::post(io, next);
    };
    boost::asio::post(io, next);
    boost::asio::steady_timer t(io, 1ms);
    t.async_wait([&](boost::system::error_code ec) { r.timer += ec ? 0 : 1; });
    run_io(io, spin);
    EXPECT_TRUE(io.stopped());
    return r;
}

} // namespace

TEST(io_loop, runs_every_handler_and_returns_when_out_of_work) {
    EXPECT_EQ(run_chain(0us), (ran{100, 1}));
    EXPECT_EQ(run_chain(50us), (ran{100, 1}));
    EXPECT_EQ(run_chain(5000us), (ran{100, 1})); // a spin longer than the timer's wait
}

TEST(io_loop, work_posted_from_another_thread_wakes_a_spinning_or_sleeping_loop) {
    for (auto spin : {0us, 50us}) {
        boost::asio::io_context io;
        auto guard = boost::asio::make_work_guard(io);
        int got = 0;
        std::thread other([&] {
            for (int i = 0; i < 10; ++i)
                boost::asio::post(io, [&] { ++got; });
            boost::asio::post(io, [&] { guard.reset(); });
        });
        run_io(io, spin);
        other.join();
        EXPECT_EQ(got, 10);
    }
}

TEST(io_loop, stop_ends_a_spinning_loop) {
    boost::asio::io_context io;
    auto guard = boost::asio::make_work_guard(io);
    boost::asio::post(io, [&] { io.stop(); });
    run_io(io, 10000us);
    EXPECT_TRUE(io.stopped());
}
