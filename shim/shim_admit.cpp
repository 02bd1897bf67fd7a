// gate-stdio's door: what every request must pass before any session or child is involved
// (Host and Origin, the bearer, the content type), and the HTTP server's own refusals.
#include "protocol/secret_compare.hpp"
#include "shim/shim_server.hpp"

#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>

namespace gate::shim {

namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using transport::http_reply;
using transport::http_request;

http_reply json_error(http::status status, std::string_view text) {
    return http_reply::json(status, json::serialize(json::object{{"error", text}}));
}

std::optional<http_reply> shim_server::admit(const http_request& req, time_point) {
    auto host = transport::header(req, "Host");
    auto origin = transport::header(req, "Origin");
    auto verdict = transport::host_verdict::allowed;
    if (settings_.loopback) {
        verdict = guard_.check(host, origin);
    } else if (origin) {
        // Beyond loopback any Host is fine (the bearer protects), but a browser page may only
        // call from the shim's own origin.
        transport::host_guard same_origin({std::string(host.value_or(""))}, false);
        verdict = same_origin.check(host, origin);
    }
    if (verdict != transport::host_verdict::allowed) {
        bool bad_host = verdict == transport::host_verdict::forbidden_host;
        stats_.rejected(bad_host ? "forbidden_host" : "forbidden_origin");
        auto reply =
            json_error(http::status::forbidden, bad_host ? "forbidden: Host is not a loopback name"
                                                         : "forbidden: cross-origin request");
        reply.close = true;
        return reply;
    }
    if (transport::path_of(req.target()) != "/mcp")
        return std::nullopt;
    if (settings_.bearer) {
        auto auth = transport::header_value(req, "Authorization");
        constexpr std::string_view scheme = "Bearer ";
        bool ok = auth.size() > scheme.size() &&
                  beast::iequals(std::string_view(auth).substr(0, scheme.size()), scheme) &&
                  protocol::secrets_equal(std::string_view(auth).substr(scheme.size()),
                                          *settings_.bearer);
        if (!ok) {
            stats_.rejected("unauthorized");
            auto reply =
                json_error(http::status::unauthorized,
                           auth.empty() ? "unauthorized: send Authorization: Bearer <token>"
                                        : "unauthorized: the bearer token is not valid");
            reply.headers.emplace_back("WWW-Authenticate", R"(Bearer realm="gate-stdio")");
            reply.close = true;
            return reply;
        }
    }
    if (req.method() == http::verb::post &&
        !std::string_view(transport::header_value(req, "Content-Type"))
             .starts_with("application/json")) {
        stats_.rejected("unsupported_media_type");
        auto reply = json_error(http::status::unsupported_media_type,
                                "Content-Type must be application/json");
        reply.close = true;
        return reply;
    }
    return std::nullopt;
}

transport::http_reply shim_server::refused(transport::server_refusal why, std::size_t limit,
                                           time_point) {
    if (why == transport::server_refusal::body_too_large)
        stats_.rejected("body_too_large");
    return transport::plain_refusal(why, limit);
}

} // namespace gate::shim
