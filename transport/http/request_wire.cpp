#include "transport/http/request_wire.hpp"

#include <boost/beast/http/field.hpp>

namespace gate::transport {

namespace http = boost::beast::http;

std::string request_wire(const http_request& req, bool body) {
    std::string out;
    out.reserve(512 + (body ? req.body().size() : 0));
    out.append(req.method_string()).append(" ").append(req.target());
    out.append(req.version() == 10 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
    for (const auto& f : req) {
        if (body && (f.name() == http::field::content_length ||
                     f.name() == http::field::transfer_encoding || f.name() == http::field::expect))
            continue;
        out.append(f.name_string()).append(": ").append(f.value()).append("\r\n");
    }
    if (body)
        out.append("Content-Length: ").append(std::to_string(req.body().size())).append("\r\n");
    out.append("\r\n");
    if (body)
        out.append(req.body());
    return out;
}

} // namespace gate::transport
