// The one writer of header fields (transport/http/header_writer): whatever name and value it is
// given, it either writes nothing or writes exactly one field that an HTTP parser reads back
// as that name and value, with nothing after it (no second field, no second request).
#include "transport/http/header_writer.hpp"

#include <boost/beast/http.hpp>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace http = boost::beast::http;

namespace {

std::string_view trimmed(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
        v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
        v.remove_suffix(1);
    return v;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
    auto cut = std::min<std::size_t>(data[0] % 64, input.size());
    auto name = input.substr(0, cut);
    auto value = input.substr(cut);

    const std::string start = "GET / HTTP/1.1\r\nHost: h\r\n";
    std::string wire = start;
    gate::transport::header_writer head(wire);
    bool written = (data[0] & 0x40) ? head.line(std::string(name) + ":" + std::string(value))
                                    : head.field_named(name, value);
    if (written != head.ok())
        std::abort();
    if (!written) {
        if (wire != start)
            std::abort();
        return 0;
    }
    wire += "\r\n";
    http::request_parser<http::empty_body> parser;
    parser.eager(true);
    boost::system::error_code ec;
    auto used = parser.put(boost::asio::buffer(wire), ec);
    if (ec || !parser.is_done() || used != wire.size())
        std::abort();
    const auto& req = parser.get();
    if (std::distance(req.begin(), req.end()) != 2)
        std::abort();
    auto it = std::next(req.begin());
    if (!(data[0] & 0x40) && it->name_string() != name)
        std::abort();
    // A value's surrounding whitespace is not part of it (RFC 9110 section 5.5).
    if (!(data[0] & 0x40) && it->value() != trimmed(value))
        std::abort();
    return 0;
}
