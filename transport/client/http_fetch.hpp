// One bounded HTTP(S) exchange on a fresh connection, for the documents gate reads from
// others: identity providers' key sets now, token endpoints and discovery later. Bounded in
// total time and answer size; a redirect is returned as it is, never followed, so nothing gate
// sends (a credential, a form) reaches a host it was not configured for.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gate::transport {

struct fetch_request {
    std::string url; // http:// or https://
    std::string method = "GET";
    std::string body; // sent when not empty
    std::string content_type;
    std::vector<std::pair<std::string, std::string>> headers;
    std::chrono::milliseconds timeout{5000}; // connect, send and read together
    std::size_t max_body = 256 * 1024;
};

struct fetch_answer {
    unsigned status = 0;
    std::string content_type;
    std::string body;
    // Caching header fields, for a caller that keeps the answer (empty when absent):
    // Cache-Control's field lines joined with ", ", and the first Expires, Date and Age.
    std::string cache_control;
    std::string expires;
    std::string date;
    std::string age;
};

// The answer, or what failed, naming the URL. `tls` verifies https peers (made on first use
// when null).
boost::asio::awaitable<std::variant<fetch_answer, std::string>>
http_fetch(boost::asio::any_io_executor ex, fetch_request req,
           std::shared_ptr<boost::asio::ssl::context> tls = nullptr);

} // namespace gate::transport
