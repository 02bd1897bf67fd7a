// The Redis client against a real Redis 7 (Debian's redis-tools), started here on a free
// loopback port and stopped by its PID: pipelined commands answered in order, credentials and
// database from the URL, the 500 ms-style bound when the server stalls, and a server that
// dies and comes back.
#include "tests/support/redis_server.hpp"
#include "transport/redis/redis_client.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <gtest/gtest.h>
#include <utility>

namespace asio = boost::asio;
using namespace gate::transport;
using gate::test::free_port;
using gate::test::redis_server;
using namespace std::chrono_literals;

namespace {

// Runs `body` on an io_context until it is done.
template <class Body> void run(Body body) {
    asio::io_context io;
    bool done = false;
    asio::co_spawn(io, body(io.get_executor()), [&](std::exception_ptr e) {
        done = true;
        if (e)
            std::rethrow_exception(e);
    });
    io.run();
    EXPECT_TRUE(done);
}

redis_endpoint endpoint(std::string url) {
    auto ep = parse_redis_url(url);
    EXPECT_TRUE(std::holds_alternative<redis_endpoint>(ep)) << std::get<std::string>(ep);
    return std::get<redis_endpoint>(ep);
}

} // namespace

TEST(RedisUrl, NamesTheServerWithoutItsPassword) {
    auto ep = endpoint("redis://user:s3cret@10.0.0.1:6380/3");
    EXPECT_EQ(ep.host, "10.0.0.1");
    EXPECT_EQ(ep.port, "6380");
    EXPECT_EQ(ep.user, "user");
    EXPECT_EQ(ep.password, "s3cret");
    EXPECT_EQ(ep.database, 3);
    EXPECT_EQ(ep.display.find("s3cret"), std::string::npos);
    EXPECT_TRUE(std::holds_alternative<std::string>(parse_redis_url("http://127.0.0.1:6379")));
    EXPECT_TRUE(std::holds_alternative<std::string>(parse_redis_url("redis://127.0.0.1/x")));
}

TEST(RedisClient, PipelinesCommandsAndAnswersEachInOrder) {
    auto port = free_port();
    redis_server server(port);
    run([&](asio::any_io_executor ex) -> asio::awaitable<void> {
        auto c = std::make_shared<redis_client>(
            ex, endpoint("redis://127.0.0.1:" + std::to_string(port)));
        // 100 increments at once on one connection: each gets its own count back.
        std::vector<long long> seen(100, 0);
        int finished = 0;
        asio::steady_timer all_done(ex, std::chrono::steady_clock::time_point::max());
        for (int i = 0; i < 100; ++i)
            asio::co_spawn(
                ex,
                [&, i]() -> asio::awaitable<void> {
                    auto reply = co_await c->command({"INCR", "n"});
                    if (auto* value = std::get_if<redis_value>(&reply))
                        seen[i] = value->integer;
                    if (++finished == 100)
                        all_done.cancel();
                },
                asio::detached);
        boost::system::error_code ec;
        co_await all_done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        std::sort(seen.begin(), seen.end());
        for (int i = 0; i < 100; ++i)
            EXPECT_EQ(seen[i], i + 1);
        auto get = co_await c->command({"GET", "n"});
        EXPECT_EQ(std::get<redis_value>(get).text, "100");
        auto wrong = co_await c->command({"NOSUCHCOMMAND"});
        EXPECT_EQ(std::get<redis_value>(wrong).type, redis_value::kind::error);
        c->close();
    });
}

TEST(RedisClient, AuthenticatesAndSelectsFromTheUrl) {
    auto port = free_port();
    redis_server server(port, {"--requirepass", "pw"});
    auto base = "127.0.0.1:" + std::to_string(port);
    run([&](asio::any_io_executor ex) -> asio::awaitable<void> {
        auto anonymous = std::make_shared<redis_client>(ex, endpoint("redis://" + base));
        auto refused = co_await anonymous->command({"SET", "k", "v"});
        EXPECT_EQ(std::get<redis_value>(refused).type, redis_value::kind::error); // NOAUTH
        auto c = std::make_shared<redis_client>(ex, endpoint("redis://:pw@" + base + "/2"));
        auto set = co_await c->command({"SET", "k", "v"});
        EXPECT_EQ(std::get<redis_value>(set).text, "OK");
        auto db = co_await c->command({"CLIENT", "INFO"});
        EXPECT_NE(std::get<redis_value>(db).text.find(" db=2 "), std::string::npos);
        anonymous->close();
        c->close();
    });
}

TEST(RedisClient, AStalledServerIsGivenUpOnAtTheBound) {
    auto port = free_port();
    redis_server server(port);
    run([&](asio::any_io_executor ex) -> asio::awaitable<void> {
        auto c = std::make_shared<redis_client>(
            ex, endpoint("redis://127.0.0.1:" + std::to_string(port)), 200ms);
        auto paused = co_await c->command({"CLIENT", "PAUSE", "1500", "ALL"});
        EXPECT_EQ(std::get<redis_value>(paused).text, "OK");
        // Without the bound the PING would be answered PONG when the pause ends.
        auto r = co_await c->command({"PING"});
        EXPECT_TRUE(std::holds_alternative<std::string>(r));
        if (auto* why = std::get_if<std::string>(&r))
            EXPECT_NE(why->find("did not answer within 200 ms"), std::string::npos);
        c->close();
    });
}

TEST(RedisClient, AServerThatDiesFailsCommandsAndOneThatReturnsServesThemAgain) {
    auto port = free_port();
    auto server = std::make_unique<redis_server>(port);
    run([&](asio::any_io_executor ex) -> asio::awaitable<void> {
        auto c = std::make_shared<redis_client>(
            ex, endpoint("redis://127.0.0.1:" + std::to_string(port)));
        EXPECT_EQ(std::get<redis_value>(co_await c->command({"PING"})).text, "PONG");
        server->kill();
        auto lost = co_await c->command({"PING"});
        EXPECT_TRUE(std::holds_alternative<std::string>(lost));
        auto down = co_await c->command({"PING"});
        EXPECT_TRUE(std::holds_alternative<std::string>(down));
        if (auto* why = std::get_if<std::string>(&down))
            EXPECT_NE(why->find("redis://127.0.0.1:"), std::string::npos);
        server = std::make_unique<redis_server>(port);
        EXPECT_EQ(std::get<redis_value>(co_await c->command({"PING"})).text, "PONG");
        c->close();
    });
}
