#include "transport/client/upstream_connection.hpp"

#include "transport/http/write_now.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <openssl/ssl.h>

namespace gate::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

asio::awaitable<std::variant<std::vector<tcp::endpoint>, std::string>>
resolve_host(asio::any_io_executor ex, const std::string& host, const std::string& port) {
    boost::system::error_code ec;
    auto literal = asio::ip::make_address(host, ec);
    unsigned long number = 0;
    try {
        number = std::stoul(port);
    } catch (const std::exception&) {
        number = 65536;
    }
    if (!ec && number < 65536)
        co_return std::vector<tcp::endpoint>{
            tcp::endpoint(literal, static_cast<unsigned short>(number))};
    tcp::resolver resolver(ex);
    auto results =
        co_await resolver.async_resolve(host, port, asio::redirect_error(asio::use_awaitable, ec));
    if (ec)
        co_return ec.message();
    std::vector<tcp::endpoint> out;
    for (const auto& r : results)
        out.push_back(r.endpoint());
    co_return out;
}

std::shared_ptr<asio::ssl::context> make_client_tls_context() {
    auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
    ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                     asio::ssl::context::no_tlsv1_1);
    ctx->set_default_verify_paths();
    ctx->set_verify_mode(asio::ssl::verify_peer);
    return ctx;
}

asio::awaitable<std::variant<upstream_connection, std::string>>
open_upstream_connection(asio::any_io_executor ex, const std::vector<tcp::endpoint>& resolved,
                         const std::string& host, asio::ssl::context* tls,
                         std::chrono::milliseconds timeout) {
    upstream_connection c;
    if (tls)
        c.tls = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(ex, *tls);
    else
        c.plain = std::make_unique<beast::tcp_stream>(ex);
    auto& lowest = c.lowest();
    boost::system::error_code ec;
    lowest.expires_after(timeout);
    co_await lowest.async_connect(resolved, asio::redirect_error(asio::use_awaitable, ec));
    // timeouts.connectMs bounds the TCP connect and the TLS handshake together.
    auto timed_out = "connect timeout after " + std::to_string(timeout.count()) + " ms";
    if (ec)
        co_return ec == beast::error::timeout ? timed_out : "cannot connect: " + ec.message();
    lowest.socket().set_option(tcp::no_delay(true), ec); // best effort
    if (!tls)
        allow_write_now(lowest.socket()); // a request goes out without a wait (round_trip)
    if (tls) {
        // The certificate is checked against the URL's host (a name or an IP address); a name
        // is also sent as SNI, which RFC 6066 does not allow for IP literals.
        boost::system::error_code not_ip;
        asio::ip::make_address(host, not_ip);
        if (not_ip && !SSL_set_tlsext_host_name(c.tls->native_handle(), host.c_str()))
            co_return std::string("TLS: cannot set the server name");
        c.tls->set_verify_callback(asio::ssl::host_name_verification(host));
        co_await c.tls->async_handshake(asio::ssl::stream_base::client,
                                        asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            co_return ec == beast::error::timeout ? timed_out + " (TLS handshake)"
                                                  : "TLS handshake failed: " + ec.message();
    }
    lowest.expires_never();
    co_return std::move(c);
}

} // namespace gate::transport
