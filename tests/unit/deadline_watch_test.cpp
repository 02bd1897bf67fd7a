// The io thread's deadline watch over a real io_context: a passed deadline fires there, a
// disarmed one does not, and a deadline that closes a socket ends the read waiting on it.
#include "transport/http/deadline_watch.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <gtest/gtest.h>

namespace gate::transport {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using clock = deadline_watch::clock;

TEST(deadline_watch, a_passed_deadline_fires_on_the_io_thread_and_is_disarmed) {
    asio::io_context io;
    auto& w = deadline_watch::of(io.get_executor());
    EXPECT_EQ(&w, &deadline_watch::of(io.get_executor())); // one per io_context
    int fired = 0;
    auto kept = w.arm(clock::now() - 1ms, [&] { ++fired; });
    EXPECT_EQ(fired, 0); // not at arming: on the io thread
    io.run();
    EXPECT_EQ(fired, 1);
    EXPECT_EQ(w.armed(), 0u);
    kept.disarm(); // after it fired: nothing
}

TEST(deadline_watch, a_disarmed_deadline_does_not_fire_and_a_moved_guard_keeps_its_own) {
    asio::io_context io;
    auto& w = deadline_watch::of(io.get_executor());
    int dropped = 0, kept = 0;
    {
        auto g = w.arm(clock::now() + 2ms, [&] { ++dropped; });
    } // destroyed: disarmed
    auto moved_from = w.arm(clock::now() + 2ms, [&] { ++kept; });
    auto moved_to = std::move(moved_from);
    moved_from.disarm(); // empty now: disarms nothing
    EXPECT_EQ(w.armed(), 1u);
    io.run();
    EXPECT_EQ(dropped, 0);
    EXPECT_EQ(kept, 1);
}

TEST(deadline_watch, a_deadline_that_closes_a_socket_ends_the_read_waiting_on_it) {
    asio::io_context io;
    asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
    asio::ip::tcp::socket client(io), server(io);
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server);
    auto& w = deadline_watch::of(io.get_executor());
    auto deadline = w.arm(clock::now() + 5ms, [&] {
        boost::system::error_code ignored;
        server.close(ignored);
    });
    char byte = 0;
    std::optional<boost::system::error_code> read;
    server.async_read_some(asio::buffer(&byte, 1),
                           [&](boost::system::error_code ec, std::size_t) { read = ec; });
    io.run(); // the peer never writes: only the deadline ends the read
    ASSERT_TRUE(read.has_value());
    EXPECT_TRUE(*read);
    EXPECT_FALSE(server.is_open());
}

} // namespace
} // namespace gate::transport
