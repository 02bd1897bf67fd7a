// write_now on real loopback sockets: a small message goes at once, a full socket stops the
// write without blocking, and a socket not prepared for it is left to asynchronous writes.
#include "transport/http/write_now.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <gtest/gtest.h>
#include <string>

namespace gate::transport {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct socket_pair {
    asio::io_context io;
    tcp::socket writer{io}, reader{io};
    socket_pair() {
        tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
        writer.connect(acceptor.local_endpoint());
        acceptor.accept(reader);
    }
};

TEST(write_now, a_small_message_goes_whole_at_once) {
    socket_pair p;
    allow_write_now(p.writer);
    boost::system::error_code ec;
    std::string message = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
    EXPECT_EQ(write_now(p.writer, message, ec), message.size());
    EXPECT_FALSE(ec);
    std::string got(message.size(), '\0');
    asio::read(p.reader, asio::buffer(got));
    EXPECT_EQ(got, message);
}

TEST(write_now, a_full_socket_stops_the_write_without_blocking_or_failing) {
    socket_pair p;
    allow_write_now(p.writer);
    boost::system::error_code ec;
    // Far more than the kernel buffers of a loopback connection the reader never drains.
    std::string huge(64u << 20, 'x');
    auto sent = write_now(p.writer, huge, ec);
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_GT(sent, 0u);
    EXPECT_LT(sent, huge.size());
}

TEST(write_now, a_blocking_socket_is_left_to_asynchronous_writes) {
    socket_pair p; // allow_write_now not called: a write could block the io thread
    boost::system::error_code ec;
    EXPECT_EQ(write_now(p.writer, "x", ec), 0u);
    EXPECT_FALSE(ec);
}

TEST(write_now, a_connection_the_peer_closed_is_a_failure) {
    socket_pair p;
    allow_write_now(p.writer);
    p.reader.close();
    boost::system::error_code ec;
    std::string chunk(1 << 16, 'x');
    // The first write may still be accepted; the peer's reset makes a later one fail.
    for (int i = 0; i < 64 && !ec; ++i)
        write_now(p.writer, chunk, ec);
    EXPECT_TRUE(ec);
}

} // namespace
} // namespace gate::transport
