// A client of one Redis server (RESP2 over TCP) on the io thread, for gate's shared state
// (issue 16): commands from any number of coroutines pipelined on one connection in order,
// each bounded by a deadline (500 ms by default: past it the caller fails open to its own
// state and the reply, when it comes, is dropped). The connection is made on first use,
// authenticated and given its database from the URL, and made again after a failure.
// Replies are parsed by hiredis's reader (transport/redis/redis_wire).
#pragma once

#include "transport/redis/redis_wire.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::transport {

// What a redis:// URL names. The password never appears in texts (`display`).
struct redis_endpoint {
    std::string host = "127.0.0.1";
    std::string port = "6379";
    std::optional<std::string> user, password;
    int database = 0;
    std::string display; // redis://host:port/db, without credentials
};

// The endpoint of a redis:// URL, or why it is not one.
std::variant<redis_endpoint, std::string> parse_redis_url(std::string_view url);

class redis_client : public std::enable_shared_from_this<redis_client> {
public:
    static constexpr auto default_bound = std::chrono::milliseconds(500);

    redis_client(boost::asio::any_io_executor ex, redis_endpoint ep,
                 std::chrono::milliseconds bound = default_bound);
    ~redis_client();

    // The reply (a Redis error is a reply of kind error), or why there is none: unreachable,
    // no answer within the bound, the connection lost.
    boost::asio::awaitable<std::variant<redis_value, std::string>>
    command(std::vector<std::string> args);

    // Ends the connection; commands in flight fail at once.
    void close();
    const redis_endpoint& endpoint() const { return ep_; }

private:
    struct pending;
    boost::asio::awaitable<std::optional<std::string>> connect();
    boost::asio::awaitable<void> read_loop(std::shared_ptr<boost::asio::ip::tcp::socket> s);
    boost::asio::awaitable<void> write_loop(std::shared_ptr<boost::asio::ip::tcp::socket> s);
    void enqueue(std::string wire, std::shared_ptr<pending> p);
    void fail_all(const std::string& why);

    boost::asio::any_io_executor ex_;
    redis_endpoint ep_;
    std::chrono::milliseconds bound_;
    std::shared_ptr<boost::asio::ip::tcp::socket> socket_;  // null: not connected
    std::shared_ptr<boost::asio::steady_timer> connecting_; // a connect in flight: its waiters
    std::optional<std::string> connect_error_;
    std::deque<std::shared_ptr<pending>> inflight_; // replies arrive in this order
    std::string outbox_;                            // commands not yet written
    bool writing_ = false;
    std::shared_ptr<boost::asio::steady_timer> write_wake_;
};

} // namespace gate::transport
