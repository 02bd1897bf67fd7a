// Feeding an HTTP parser what its buffer already holds. A small message usually arrives whole
// in one read: once its header is parsed, the body is in the buffer, and parsing it here saves
// an asynchronous read (a composed operation, a timer and a queued completion) per message.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>

namespace gate::transport {

// Parses buffered bytes into `parser` until it is done or the buffer is used up. `ec` is a
// parse error (a body over the parser's limit, a malformed chunk); needing more bytes is not
// one: the caller reads the rest as usual when `parser.is_done()` is false.
template <class Parser>
void parse_buffered(Parser& parser, boost::beast::flat_buffer& buf, boost::beast::error_code& ec) {
    while (!parser.is_done() && buf.size() > 0) {
        auto n = parser.put(buf.data(), ec);
        if (ec == boost::beast::http::error::need_more) {
            ec = {};
            return;
        }
        if (ec)
            return;
        buf.consume(n);
        if (n == 0)
            return;
    }
}

// One step of a header's read: parses what `buf` holds. True once the header is in or `ec`
// holds a parse error; false when it needs more bytes.
template <class Parser>
bool header_step(Parser& parser, boost::beast::flat_buffer& buf, boost::beast::error_code& ec) {
    if (buf.size() == 0)
        return false;
    auto n = parser.put(buf.data(), ec);
    buf.consume(n);
    if (ec != boost::beast::http::error::need_more)
        return true;
    ec = {};
    return false;
}

// A header's read that failed: the end of the stream is end_of_stream when nothing was read,
// partial_message when the header was cut short (as http::async_read_header has them).
template <class Parser>
void header_read_failed(const Parser& parser, const boost::beast::flat_buffer& buf,
                        boost::beast::error_code& ec) {
    namespace http = boost::beast::http;
    if (ec == boost::asio::error::eof)
        ec = parser.got_some() || buf.size() > 0 ? http::error::partial_message
                                                 : http::error::end_of_stream;
}

// What one read of a header asks for: a header is a few hundred bytes.
constexpr std::size_t header_read_size = 4096;

// Reads a message's header the way http::async_read_header does (the same errors), but with
// plain reads of the stream: one asynchronous operation per read instead of three layers of
// composed ones. The parser is not eager: it stops after the header, and what follows stays
// in `buf`.
template <class Stream, class Parser>
boost::asio::awaitable<void> read_header(Stream& stream, boost::beast::flat_buffer& buf,
                                         Parser& parser, boost::beast::error_code& ec) {
    while (!header_step(parser, buf, ec)) {
        auto n = co_await stream.async_read_some(
            buf.prepare(header_read_size),
            boost::asio::redirect_error(boost::asio::use_awaitable, ec));
        buf.commit(n);
        if (ec) {
            header_read_failed(parser, buf, ec);
            co_return;
        }
    }
}

} // namespace gate::transport
