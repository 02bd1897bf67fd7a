#include "gateway/program/io_thread_context.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <gtest/gtest.h>
#include <memory>

using gate::gateway::program::io_thread_context;
namespace asio = boost::asio;

namespace {

// What a suspended frame points into (a gateway's key-set source, say): its destructor writes
// here, so the owner must outlive the frame.
struct owner {
    int frames_ended = 0;
};

asio::awaitable<void> wait_on(asio::steady_timer& timer, owner& o) {
    struct on_end {
        owner& o;
        ~on_end() { ++o.frames_ended; }
    } ending{o};
    co_await timer.async_wait(asio::use_awaitable);
}

} // namespace

TEST(io_thread_context, abandoning_destroys_suspended_frames_while_their_owner_lives) {
    io_thread_context io{1};
    auto o = std::make_unique<owner>();
    auto timer = std::make_unique<asio::steady_timer>(io, std::chrono::hours(1));
    asio::co_spawn(io, wait_on(*timer, *o), asio::detached);
    io.poll(); // the frame starts and suspends on the timer
    ASSERT_EQ(o->frames_ended, 0);

    io.abandon_pending();
    EXPECT_EQ(o->frames_ended, 1); // ended here, not when the context is destroyed
    // The owner and the timer may now go before the context (the host's order).
    timer.reset();
    o.reset();
}

TEST(io_thread_context, work_queued_but_never_run_is_destroyed_too) {
    io_thread_context io{1};
    auto held = std::make_shared<int>(0);
    asio::post(io, [held] { ++*held; });
    EXPECT_EQ(held.use_count(), 2);
    io.abandon_pending();
    EXPECT_EQ(held.use_count(), 1);
    EXPECT_EQ(*held, 0); // destroyed, not run
}
