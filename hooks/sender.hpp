// One delivery attempt on the wire: an HTTPS POST to a webhook's URL, on a connection of its
// own, refused before connecting when every address the name resolves to is non-public (unless
// the operator allows private targets), the peer verified against the system trust store or
// the operator's CA file, the whole exchange bounded by the delivery timeout.
#pragma once

#include "hooks/settings.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
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
    boost::asio::any_io_executor ex_;
    delivery_settings settings_;
    std::shared_ptr<boost::asio::ssl::context> tls_;
};

} // namespace gate::hooks
