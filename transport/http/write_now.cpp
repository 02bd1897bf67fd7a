#include "transport/http/write_now.hpp"

#include <boost/asio/error.hpp>

namespace gate::transport {

void allow_write_now(boost::asio::ip::tcp::socket& s) {
    boost::system::error_code ignored; // a closed socket: the write that follows says so
    s.non_blocking(true, ignored);
}

std::size_t write_now(boost::asio::ip::tcp::socket& s, std::string_view data,
                      boost::system::error_code& ec) {
    std::size_t written = 0;
    if (!s.non_blocking())
        return 0; // it would block the io thread: the caller writes asynchronously
    while (written < data.size()) {
        written += s.write_some(boost::asio::buffer(data.substr(written)), ec);
        if (ec == boost::asio::error::would_block || ec == boost::asio::error::try_again) {
            ec = {};
            break;
        }
        if (ec)
            break;
    }
    return written;
}

} // namespace gate::transport
