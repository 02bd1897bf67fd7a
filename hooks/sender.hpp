// One delivery attempt on the wire: an HTTPS POST to a webhook's URL, on a kept-alive
// connection to that receiver when one is idle (else a new one), a new connection refused before
// connecting when every address the name resolves to is non-public (unless the operator allows
// private targets), the peer verified against the system trust store or the operator's CA file, the
// whole exchange bounded by the delivery timeout.
#pragma once

#include "hooks/settings.hpp"
#include "transport/upstream_connection.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
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

    boost::asio::awaitable<send_result>
    post(const std::string& url, const std::string& body,
         const std::vector<std::pair<std::string, std::string>>& headers);

private:
    // Resolves, judges the addresses, connects and handshakes; nullopt with out.error set.
    boost::asio::awaitable<std::optional<transport::upstream_connection>>
    connect(const std::string& host, const std::string& port, std::chrono::milliseconds budget,
            send_result& out);
    std::optional<transport::upstream_connection> take_idle(const std::string& key);
    void give_back(const std::string& key, transport::upstream_connection conn);

    static constexpr std::size_t max_idle_per_receiver = 64;
    static constexpr auto max_idle_age = std::chrono::seconds(4);

    boost::asio::any_io_executor ex_;
    delivery_settings settings_;
    std::shared_ptr<boost::asio::ssl::context> tls_;
    // Kept-alive connections per receiver (host:port), most recently used last.
    std::unordered_map<std::string, std::deque<transport::upstream_connection>> idle_;
};

} // namespace gate::hooks
