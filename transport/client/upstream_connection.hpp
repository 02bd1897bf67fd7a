// One keep-alive connection to an upstream endpoint: plain TCP for http://, TLS over TCP for
// https:// (peer verified against the system trust store, or SSL_CERT_FILE / SSL_CERT_DIR,
// with the URL's host name checked and sent as SNI).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace gate::transport {

struct upstream_connection {
    std::unique_ptr<boost::beast::tcp_stream> plain;
    std::unique_ptr<boost::beast::ssl_stream<boost::beast::tcp_stream>> tls;
    std::chrono::steady_clock::time_point idle_since; // when it went back to the pool

    boost::beast::tcp_stream& lowest() {
        return plain ? *plain : boost::beast::get_lowest_layer(*tls);
    }
};

// The endpoints of host:port. An IP literal is its own endpoint at once, without the system
// resolver, which runs on a thread of its own (Asio's) and costs a hop there and back.
boost::asio::awaitable<std::variant<std::vector<boost::asio::ip::tcp::endpoint>, std::string>>
resolve_host(boost::asio::any_io_executor ex, const std::string& host, const std::string& port);

// A client TLS context that verifies peers against the default trust store.
std::shared_ptr<boost::asio::ssl::context> make_client_tls_context();

// Connects (and for TLS, handshakes) within `timeout`; the error text says which step failed.
boost::asio::awaitable<std::variant<upstream_connection, std::string>> open_upstream_connection(
    boost::asio::any_io_executor ex, const std::vector<boost::asio::ip::tcp::endpoint>& resolved,
    const std::string& host, boost::asio::ssl::context* tls, std::chrono::milliseconds timeout);

} // namespace gate::transport
