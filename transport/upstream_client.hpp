// The gateway's client of one upstream MCP server over streamable HTTP: keep-alive connection
// pools per endpoint, the sessionful handshake of the shared root session, JSON and SSE
// answers, re-initialization when the upstream forgets the session (404), and timeouts.
//
// Threading: an upstream_client lives on the single io thread (one io_context thread, see
// docs/architecture.md); its pools and session state are touched only from coroutines on it.
#pragma once

#include "config/model.hpp"
#include "transport/upstream_connection.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::transport {

// A JSON-RPC response as the upstream sent it: parsed, and the exact text (so it can be passed
// on byte for byte).
struct upstream_message {
    boost::json::object body;
    std::string raw;
};

struct upstream_failure {
    enum class kind { connect_error, timeout, http_status, protocol };
    kind what;
    std::string message;
    int status = 0;
    std::optional<upstream_message> answer; // the upstream's own JSON-RPC error, when it sent one
};

// The upstream's JSON-RPC response (result or error), or why there is none.
using upstream_reply = std::variant<upstream_message, upstream_failure>;

struct call_context {
    std::string traceparent; // W3C trace context propagated to the upstream
    std::optional<std::chrono::milliseconds> timeout; // tighter than timeouts.requestMs
};

class upstream_client {
public:
    upstream_client(boost::asio::any_io_executor ex, config::upstream cfg);
    ~upstream_client();

    const config::upstream& config() const { return cfg_; }

    // Sends one request on the root session. The reply carries the gateway's upstream-side id;
    // the caller puts its own client's id back.
    boost::asio::awaitable<upstream_reply>
    request(std::string_view method, boost::json::object params, const call_context& ctx);

    // The upstream's initialize result (after the handshake), for passthrough mode.
    boost::asio::awaitable<std::variant<boost::json::object, upstream_failure>>
    initialize_result(const call_context& ctx);

    // Fetches one complete list, following the upstream's own nextCursor pages.
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch_list(std::string_view method, std::string_view key, const call_context& ctx);

    // Forgets the root session (the next request re-initializes).
    void reset_session();

private:
    struct endpoint;
    struct http_answer;
    struct session_state {
        std::string id;
        std::string protocol_version;
    };

    boost::asio::awaitable<std::variant<http_answer, upstream_failure>>
    exchange(endpoint& ep, const boost::json::object& msg, const session_state& session,
             const call_context& ctx, std::chrono::steady_clock::time_point deadline);
    boost::asio::awaitable<std::variant<upstream_connection, upstream_failure>>
    connect(endpoint& ep);
    template <class Stream>
    boost::asio::awaitable<void> round_trip(Stream& stream, const std::string& wire,
                                            const boost::json::value* want_id, http_answer& answer,
                                            bool& header_read, bool& reusable,
                                            boost::system::error_code& ec);
    boost::asio::awaitable<std::optional<upstream_failure>> ensure_session(const call_context& ctx);
    // timeouts.requestMs, or the caller's tighter budget.
    std::chrono::milliseconds budget_for(const call_context& ctx) const;
    boost::asio::awaitable<std::optional<upstream_failure>> handshake(const call_context& ctx);

    boost::asio::any_io_executor ex_;
    config::upstream cfg_;
    std::vector<std::unique_ptr<endpoint>> endpoints_;
    std::size_t next_endpoint_ = 0;
    endpoint* session_endpoint_ = nullptr;
    session_state session_;
    std::uint64_t session_generation_ = 0; // bumped by every published handshake
    boost::json::object init_result_;
    bool session_ready_ = false;
    bool handshaking_ = false;
    std::shared_ptr<boost::asio::steady_timer> handshake_done_; // cancelled when it ends
    std::int64_t next_id_ = 1;
    std::shared_ptr<boost::asio::ssl::context> tls_; // created with the first https endpoint
};

} // namespace gate::transport
