// One delivery attempt on the wire: an HTTPS POST to a webhook's URL, on a kept-alive
// connection to that receiver when one is idle (else a new one), at most
// `connections_per_receiver` exchanges with one receiver at once (the rest wait their turn
// within their timeout, so a burst neither floods a receiver nor pays a TLS handshake per
// delivery for connections the pool could not keep), a new connection refused before
// connecting when every address the name resolves to is non-public (unless the operator allows
// private targets), the peer verified against the system trust store or the operator's CA file, the
// whole exchange bounded by the delivery timeout.
#pragma once

#include "hooks/settings.hpp"
#include "transport/client/upstream_connection.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gate::hooks {

struct send_result {
    std::optional<int> status; // the receiver's HTTP status, when it answered
    std::string status_text;   // its reason phrase
    std::string body;          // the first 4 KiB of its body
    std::optional<std::chrono::milliseconds> retry_after;
    std::optional<std::string> error; // no answer: why (timeout, refused, TLS, blocked target)
};

inline constexpr std::size_t kept_response_bytes = 4096;

class sender {
public:
    sender(boost::asio::any_io_executor ex, const delivery_settings& settings);
    ~sender();
    sender(const sender&) = delete;
    sender& operator=(const sender&) = delete;

    boost::asio::awaitable<send_result>
    post(const std::string& url, const std::string& body,
         const std::vector<std::pair<std::string, std::string>>& headers);

    // Closes kept-alive connections too old to be reused and forgets receivers with nothing
    // idle, in flight or waiting, so neither half-closed sockets nor one entry per receiver
    // ever talked to pile up. Cheap to call often: it does its work at most once a second.
    void sweep(std::chrono::steady_clock::time_point now);

private:
    // Resolves, judges the addresses, connects and handshakes; nullopt with out.error set.
    boost::asio::awaitable<std::optional<transport::upstream_connection>>
    connect(const std::string& host, const std::string& port, std::chrono::milliseconds budget,
            send_result& out);

    // One receiver (host:port): its kept-alive connections, most recently used last, and the
    // exchanges with it in flight or waiting for a turn. Shared with the exchanges' coroutine
    // frames, which an io_context being torn down may destroy after the sender.
    struct slot_waiter;
    struct receiver {
        std::size_t limit = 1;
        std::deque<transport::upstream_connection> idle;
        std::size_t busy = 0;
        std::deque<slot_waiter*> waiting;
        bool closed = false; // the sender is gone: turns end without handing over
    };
    class slot;

    // A turn to talk to the receiver, waited for until `deadline`; false when it did not come.
    static boost::asio::awaitable<bool> take_turn(std::shared_ptr<receiver> r,
                                                  std::chrono::steady_clock::time_point deadline);
    static void end_turn(receiver& r);
    static std::optional<transport::upstream_connection> take_idle(receiver& r);
    static void give_back(receiver& r, transport::upstream_connection conn);

    static constexpr auto max_idle_age = std::chrono::seconds(4);

    boost::asio::any_io_executor ex_;
    delivery_settings settings_;
    std::shared_ptr<boost::asio::ssl::context> tls_;
    std::unordered_map<std::string, std::shared_ptr<receiver>> receivers_;
    std::chrono::steady_clock::time_point last_sweep_{};
};

} // namespace gate::hooks
