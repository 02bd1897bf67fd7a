// Between the simulated fleet and a real redis-server (docs/simulations.md, Fleet): a loopback
// TCP proxy on the simulation's io_context that passes every byte on, counts the commands sent
// and the replies back (RESP, both ways), and, during a `stall` fault, holds the store's
// replies until the stall ends in virtual time. While a command is unanswered the simulation
// waits for Redis in real time instead of moving virtual time (virtual_time.hpp), so the fleet
// sees the store answer at once in virtual time, as a store next door would, unless it stalls.
#pragma once

#include "simulations/replay/fault_script.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gate::sim {

class sim_store_proxy {
public:
    // Listens on 127.0.0.1, a free port; each connection is passed to host:port.
    sim_store_proxy(boost::asio::io_context& io, std::string host, std::string port,
                    std::shared_ptr<const fault_script> faults);

    std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
    // Stalls count from `start` (the replay's first message).
    void arm_faults(std::chrono::steady_clock::time_point start) { start_ = start; }
    // Commands sent to the store and not yet answered by it (held replies count as answered).
    std::int64_t unanswered() const { return sent_ - answered_; }

    std::uint64_t commands() const { return static_cast<std::uint64_t>(sent_); }
    std::uint64_t held = 0; // replies a stall held back

private:
    struct link;
    boost::asio::awaitable<void> accept_loop();
    boost::asio::awaitable<void> upstream_pump(std::shared_ptr<link> l);
    boost::asio::awaitable<void> downstream_pump(std::shared_ptr<link> l);
    boost::asio::awaitable<void> deliver_held(std::shared_ptr<link> l,
                                              std::chrono::steady_clock::time_point at);
    // The end of the stall in force now, if one is.
    std::optional<std::chrono::steady_clock::time_point> stalled_until() const;

    boost::asio::io_context& io_;
    boost::asio::ip::tcp::acceptor acceptor_;
    std::string host_, port_;
    std::shared_ptr<const fault_script> faults_;
    std::optional<std::chrono::steady_clock::time_point> start_;
    std::int64_t sent_ = 0, answered_ = 0;
};

} // namespace gate::sim
