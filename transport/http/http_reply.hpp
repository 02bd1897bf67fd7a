// A complete, non-streaming HTTP answer as the endpoints build it, before Beast serializes it.
#pragma once

#include <boost/beast/http/status.hpp>
#include <string>
#include <utility>
#include <vector>

namespace gate::transport {

struct http_reply {
    boost::beast::http::status status = boost::beast::http::status::ok;
    std::string content_type;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    bool close = false; // the request body was not consumed: the connection cannot be reused

    static http_reply json(boost::beast::http::status s, std::string body) {
        return {s, "application/json", std::move(body), {}, false};
    }
    static http_reply text(boost::beast::http::status s, std::string body) {
        return {s, "text/plain; charset=utf-8", std::move(body), {}, false};
    }
    static http_reply empty(boost::beast::http::status s) { return {s, "", "", {}, false}; }
};

} // namespace gate::transport
