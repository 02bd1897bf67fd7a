// One bounded HTTP(S) exchange, on a fresh connection or one kept in a pool, for the documents
// gate reads from others and the questions it asks them: identity providers' key sets, token
// endpoints, discovery, the decision hook. Bounded in
// total time (the name's resolution included) and answer size; a redirect is returned as it is,
// never followed, so nothing gate sends (a credential, a form) reaches a host it was not
// configured for.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gate::transport {

// How a fetch finds its peer's addresses: the endpoints, or why not. Null: the system's
// resolver (resolve_host); a test gives one of its own (one that never answers, say).
using resolve_step = std::function<
    boost::asio::awaitable<std::variant<std::vector<boost::asio::ip::tcp::endpoint>, std::string>>(
        const std::string& host, const std::string& port)>;

struct fetch_request {
    std::string url; // http:// or https://
    std::string method = "GET";
    std::string body; // sent when not empty
    std::string content_type;
    std::vector<std::pair<std::string, std::string>> headers;
    std::chrono::milliseconds timeout{5000}; // resolve, connect, send and read together
    std::size_t max_body = 256 * 1024;
    resolve_step resolve;
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
    // The first WWW-Authenticate (a 401's challenge: where the resource's metadata is).
    std::string www_authenticate;
};

struct upstream_connection;

// Connections kept open to one origin between exchanges, for a peer asked on the request path
// (the decision hook): a fresh connection per question would add its handshake to each one,
// and leave a socket in TIME_WAIT per question. The most recently used is reused first; one
// idle longer than 4 s is not trusted (Node's servers close idle connections at 5 s). Lives
// on the io thread.
class fetch_pool {
public:
    explicit fetch_pool(std::size_t capacity = 64);
    ~fetch_pool();
    fetch_pool(const fetch_pool&) = delete;
    fetch_pool& operator=(const fetch_pool&) = delete;

    // A kept connection to `origin` ("https://host:port"), if one is fresh enough.
    std::optional<upstream_connection> take(const std::string& origin);
    // Keeps `c` for the next exchange with `origin` (a pool follows one origin: another
    // forgets what it kept).
    void give(const std::string& origin, upstream_connection c);
    std::size_t size() const;

private:
    struct kept;
    std::unique_ptr<kept> kept_;
};

// The answer, or what failed, naming the URL. `tls` verifies https peers (made on first use
// when null). With `pool`, a kept connection is used when there is one (and, if the peer had
// closed it, the exchange is made once more on a fresh one) and kept again when the answer
// allows; without, the connection is closed after the answer.
boost::asio::awaitable<std::variant<fetch_answer, std::string>>
http_fetch(boost::asio::any_io_executor ex, fetch_request req,
           std::shared_ptr<boost::asio::ssl::context> tls = nullptr, fetch_pool* pool = nullptr);

// A POST asked again and again of one URL with the same header fields on kept connections (the
// decision hook's questions): the URL read and the head written once, so a question costs its
// body's length and bytes after that head, sent as one buffer (Beast's field-by-field
// serializer cost a question more than the rest of its exchange, docs/benchmarks.md). The
// head: Host, User-Agent, Accept: application/json, the given fields, Content-Type.
struct prepared_post {
    std::string url;
    bool secure = false;
    std::string host, port, origin;
    std::string head; // the request line and fields, up to Content-Length
    resolve_step resolve;

    // One request's bytes: the head, `fields` (whole `Name: value` lines of this request
    // only, checked by their writer), Content-Length and `body`.
    std::string wire(std::string_view body, std::string_view fields = {}) const;
};

// The POST's head, or why gate will not send it: not an http(s) URL, or a field holding a
// control character (named, its value never told: it may be a secret).
std::variant<prepared_post, std::string>
prepare_post(std::string url, std::string_view content_type,
             const std::vector<std::pair<std::string, std::string>>& headers);

// http_fetch of `body` to `to` (which must outlive the exchange) on `pool`'s connections,
// within `timeout` (resolve, connect, send and read together), the answer's body at most
// `max_body` bytes. The deadline of a question on an open connection is kept by the io
// thread's deadline_watch (within 20 ms), not by a timer armed per read and write: run it on
// the thread of its executor's io_context.
// `fields`: this request's own header lines (prepared_post::wire), the same on a retry.
boost::asio::awaitable<std::variant<fetch_answer, std::string>>
http_post(boost::asio::any_io_executor ex, const prepared_post& to, std::string_view body,
          std::chrono::milliseconds timeout, std::size_t max_body,
          std::shared_ptr<boost::asio::ssl::context> tls, fetch_pool& pool,
          std::string_view fields = {});

} // namespace gate::transport
