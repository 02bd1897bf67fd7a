#include "simulations/replay/sim_store_proxy.hpp"

#include "transport/redis/redis_wire.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace gate::sim {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct sim_store_proxy::link {
    explicit link(asio::io_context& io) : gate(io), store(io) {}
    tcp::socket gate, store;
    transport::redis_reply_reader commands, replies;
    std::string held;      // replies read during a stall, delivered when it ends
    bool flushing = false; // the held replies are being delivered (or waiting to be)
    void close() {
        boost::system::error_code ec;
        gate.close(ec);
        store.close(ec);
    }
};

sim_store_proxy::sim_store_proxy(asio::io_context& io, std::string host, std::string port,
                                 std::shared_ptr<const fault_script> faults)
    : io_(io), acceptor_(io, {asio::ip::make_address("127.0.0.1"), 0}), host_(std::move(host)),
      port_(std::move(port)), faults_(std::move(faults)) {
    asio::co_spawn(io_, accept_loop(), asio::detached);
}

std::optional<std::chrono::steady_clock::time_point> sim_store_proxy::stalled_until() const {
    if (!faults_ || !start_)
        return std::nullopt;
    auto elapsed = std::chrono::steady_clock::now() - *start_;
    for (const auto& f : faults_->faults)
        if (f.what == fault::kind::stall && elapsed >= f.from && elapsed < f.to)
            return *start_ + f.to;
    return std::nullopt;
}

asio::awaitable<void> sim_store_proxy::accept_loop() {
    for (;;) {
        boost::system::error_code ec;
        auto l = std::make_shared<link>(io_);
        co_await acceptor_.async_accept(l->gate, asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            co_return;
        // A numeric host: the endpoint at once, no resolver thread (real time) involved.
        tcp::endpoint at(asio::ip::make_address(host_),
                         static_cast<unsigned short>(std::stoul(port_)));
        co_await l->store.async_connect(at, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            l->close();
            continue;
        }
        // Without Nagle on both sides: a small reply held back for the peer's delayed ACK
        // would reach gate milliseconds later in real time, after virtual time had moved on.
        l->gate.set_option(tcp::no_delay(true), ec);
        l->store.set_option(tcp::no_delay(true), ec);
        asio::co_spawn(io_, upstream_pump(l), asio::detached);
        asio::co_spawn(io_, downstream_pump(l), asio::detached);
    }
}

// gate -> store: each complete command counted before its bytes leave.
asio::awaitable<void> sim_store_proxy::upstream_pump(std::shared_ptr<link> l) {
    std::array<char, 16384> buf;
    for (;;) {
        boost::system::error_code ec;
        auto n = co_await l->gate.async_read_some(asio::buffer(buf),
                                                  asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            break;
        l->commands.feed(std::string_view(buf.data(), n));
        for (;;) {
            auto c = l->commands.next();
            if (!std::holds_alternative<transport::redis_value>(c))
                break;
            ++sent_;
        }
        co_await asio::async_write(l->store, asio::buffer(buf.data(), n),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            break;
    }
    l->close();
}

// store -> gate: replies counted as they arrive (the store answered); during a stall they are
// held and delivered when it ends, in order, while the store goes on being read.
asio::awaitable<void> sim_store_proxy::downstream_pump(std::shared_ptr<link> l) {
    std::array<char, 16384> buf;
    for (;;) {
        boost::system::error_code ec;
        auto n = co_await l->store.async_read_some(asio::buffer(buf),
                                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            break;
        l->replies.feed(std::string_view(buf.data(), n));
        std::int64_t replies = 0;
        for (;;) {
            auto r = l->replies.next();
            if (!std::holds_alternative<transport::redis_value>(r))
                break;
            ++replies;
        }
        answered_ += replies;
        auto until = stalled_until();
        if (until || l->flushing) {
            if (until)
                held += static_cast<std::uint64_t>(replies);
            l->held.append(buf.data(), n);
            if (!l->flushing) {
                l->flushing = true;
                asio::co_spawn(io_, deliver_held(l, *until), asio::detached);
            }
            continue;
        }
        co_await asio::async_write(l->gate, asio::buffer(buf.data(), n),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            break;
    }
    l->close();
}

asio::awaitable<void> sim_store_proxy::deliver_held(std::shared_ptr<link> l,
                                                    std::chrono::steady_clock::time_point at) {
    boost::system::error_code ec;
    asio::steady_timer wait(io_, at);
    co_await wait.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    while (!l->held.empty() && !ec) {
        auto bytes = std::exchange(l->held, {});
        co_await asio::async_write(l->gate, asio::buffer(bytes),
                                   asio::redirect_error(asio::use_awaitable, ec));
    }
    l->flushing = false;
}

} // namespace gate::sim
