// One HTTP exchange with an upstream endpoint over transport/client/upstream_connection: a
// pooled keep-alive connection (or a fresh one, once more when a pooled one turns out dead),
// the request's bytes with its credential, its JSON or SSE answer within the request's
// deadline (kept by the io thread's watch: passed, the connection is closed), the rest of an
// event stream drained in the background so the connection is reused; and the long-lived
// event streams and the DELETE that ends a session. The upstream's own messages on an
// answer's stream go to the call's observer, or else to the client's.
#pragma once

#include "gateway/upstream/call_cancel.hpp"
#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_credential.hpp"
#include "gateway/upstream/upstream_state.hpp"
#include "transport/client/idle_pool.hpp"
#include "transport/client/upstream_connection.hpp"
#include "transport/http/deadline_watch.hpp"
#include "transport/http/sse.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::transport {
class header_writer;
}

namespace gate::gateway {

class upstream_credentials;
class upstream_guards;

// The revision gate asks for in its own initialize (handshakes, health probes).
inline constexpr std::string_view client_protocol_version = "2025-11-25";

// An upstream session as its requests carry it: its id and the revision it speaks.
struct session_state {
    std::string id;
    std::string protocol_version;
};

// Whose request goes out: the session it belongs to, which names where the upstream's own
// messages on its answer's stream came from (its bridge; empty: a root session), and at a
// per-caller upstream the caller whose credential it carries (null: gate's own).
struct session_origin {
    std::string bridge;
    std::shared_ptr<const caller_credential> caller;
};

// One message as it goes to an upstream: its text, and what the exchange (and the 2026-07-28
// header mirrors) read from it. Views point into the message it was made of.
struct outgoing_message {
    std::string body;
    std::string_view method; // a request's or a notification's; empty for a response
    std::string_view name;   // the name a call is about (Mcp-Name), or empty
    bool request = false;    // has an id: an answer is awaited
    boost::json::value id;
    // More header fields of a 2026-07-28 request (a tools/call's Mcp-Param-*).
    std::vector<std::pair<std::string, std::string>> fields;
    // `source`: the text `msg` was read from, which it is written from (empty: none).
    static outgoing_message of(const boost::json::object& msg, std::string_view source = {});
};

// One of the upstream's replicas (upstreams[].urls), with its pool.
struct upstream_endpoint {
    std::size_t index = 0; // in the upstream's urls and the rotation
    std::string url, host, port, target;
    std::string authority; // host:port, the Host header
    bool tls = false;
    // Up to 1024 idle connections, none trusted after 4 s idle (Node closes them at 5 s).
    transport::idle_pool<transport::upstream_connection> idle{1024, std::chrono::seconds(4)};
    std::vector<boost::asio::ip::tcp::endpoint> resolved;
};

// One HTTP answer.
struct http_answer {
    int status = 0;
    std::string session_id;
    std::optional<upstream_message> message; // the JSON-RPC response, when one came
    bool stream_unfinished = false; // an event stream whose end had not arrived with the answer
    // An event stream that ended without the answer: its last event id and `retry:`, from
    // which a 2025-era client resumes it with a GET (SSE polling, stream_resumption.cpp).
    std::string resume_from;
    std::optional<std::chrono::milliseconds> retry;
    std::string challenge{}; // a 401's or 403's WWW-Authenticate, when it came with one
};

class upstream_exchange {
public:
    using clock = std::chrono::steady_clock;

    // `heard`: where the upstream's messages go when the call has no observer (the client's).
    upstream_exchange(upstream_state& state, upstream_credentials& credentials,
                      upstream_guards& guards, upstream_observer& heard);
    upstream_exchange(const upstream_exchange&) = delete;
    upstream_exchange& operator=(const upstream_exchange&) = delete;

    const std::vector<std::unique_ptr<upstream_endpoint>>& endpoints() const { return endpoints_; }
    upstream_endpoint& endpoint(std::size_t index) { return *endpoints_[index]; }
    // The credentials its requests carry (a session's GET stream carries them too).
    upstream_credentials& credentials() { return credentials_; }

    // Sends `msg` on `session` to `ep` and reads its answer by `deadline`. `origin`: the
    // session it goes on (its caller's credential; where the upstream's messages came from),
    // null for gate's own traffic outside any session (probes).
    // `cancel`: the call's cancellation, which closes the exchange (a cancelled failure).
    boost::asio::awaitable<std::variant<http_answer, upstream_failure>>
    exchange(upstream_endpoint& ep, const outgoing_message& msg, const session_state& session,
             const call_context& ctx, clock::time_point deadline, const session_origin* origin,
             call_cancel* cancel = nullptr);
    boost::asio::awaitable<std::variant<transport::upstream_connection, upstream_failure>>
    connect(upstream_endpoint& ep);
    // The request as it goes on the wire: headers (session, version, 2026-07-28 mirrors, trace
    // context) and body. A field that would carry a control character fails the request
    // before it is sent.
    std::variant<std::string, upstream_failure> post_wire(const upstream_endpoint& ep,
                                                          const outgoing_message& msg,
                                                          const session_state& session,
                                                          const call_context& ctx,
                                                          std::string_view credential) const;
    // A session's GET for an event stream: its own (listen), or an answer's resumed after
    // `last_event_id` (non-empty). Refused like post_wire's when a field holds a control
    // character.
    std::variant<std::string, upstream_failure>
    stream_wire(const upstream_endpoint& ep, const session_state& session,
                std::string_view credential, std::string_view last_event_id = {}) const;
    // Sends `wire` on `conn` and follows its answer as a long-lived event stream while
    // `going()`: `on_sent` once the request is written, `on_open` once the header says 200
    // (and text/event-stream, if required), then each message that has a method. False: the
    // stream was not opened.
    boost::asio::awaitable<bool> follow_stream(transport::upstream_connection& conn,
                                               const std::string& wire, bool require_event_stream,
                                               std::function<void()> on_open,
                                               std::function<bool()> going,
                                               std::function<void(upstream_message)> on_message,
                                               std::function<void()> on_sent = {});
    // Tells the upstream a session ended (DELETE), with its caller's credential. Spawned: it
    // holds the client for its length.
    boost::asio::awaitable<void> send_delete(upstream_endpoint& ep, session_state state,
                                             std::shared_ptr<const caller_credential> caller);

private:
    // The reading state of one answer: what remains of an event stream after its JSON-RPC
    // response is read to its end in the background (drain), so the connection is reused.
    struct answer_reader;
    // What one round trip reads and writes: the request's bytes, its deadline and
    // cancellation, and where its answer goes.
    struct round {
        const std::string& wire;
        const boost::json::value* want_id;
        http_answer& answer;
        bool& header_read;
        bool& reusable;
        boost::system::error_code& ec;
        const call_context& ctx;
        const session_origin* origin;
        answer_reader& reader;
        clock::time_point deadline;
        call_cancel* cancel;
    };
    template <class Stream>
    boost::asio::awaitable<bool> round_trip(Stream& stream, boost::asio::ip::tcp::socket& socket,
                                            round r);
    // A JSON answer's body, past its header: `answer.message` when it is a JSON object.
    template <class Stream>
    boost::asio::awaitable<void> read_json_answer(Stream& stream, answer_reader& reader,
                                                  std::string_view ctype, http_answer& answer,
                                                  bool& reusable, boost::system::error_code& ec);
    template <class Stream>
    boost::asio::awaitable<void> read_event_answer(Stream& stream, round& r);
    // The round trip within the request's deadline (passed: a timeout in `ec`), closed when
    // the call is cancelled meanwhile (true).
    boost::asio::awaitable<bool> guarded_round_trip(transport::upstream_connection& conn,
                                                    const round& r);
    // The events of an answer's stream read so far: the upstream's own messages go to the
    // observer; true once the answer (the response to `want_id`) is among them.
    bool take_events(std::vector<transport::sse_event>& events, const boost::json::value* want_id,
                     http_answer& answer, const call_context& ctx, const session_origin* origin);
    boost::asio::awaitable<void> drain(upstream_endpoint& ep, transport::upstream_connection conn,
                                       std::shared_ptr<answer_reader> reader);
    // An answer's stream that ended without the answer, resumed: a GET with Last-Event-ID
    // after the upstream's `retry:` (bounded), the answer read from that stream, a few times
    // at most and within the deadline (stream_resumption.cpp).
    boost::asio::awaitable<std::variant<http_answer, upstream_failure>>
    resume_answer(upstream_endpoint& ep, const session_state& session, const call_context& ctx,
                  clock::time_point deadline, const session_origin* origin, call_cancel* cancel,
                  const boost::json::value* want_id, http_answer answer,
                  const std::string& credential);
    // Why an exchange whose round trip ended in `ec` failed; nullopt: its answer stands.
    // `reader`: what read the answer (an answer over its limit, or one that took the
    // upstream's answers past theirs, failed).
    std::optional<upstream_failure> read_failure(const upstream_endpoint& ep,
                                                 boost::system::error_code ec, bool header_read,
                                                 const http_answer& answer,
                                                 const answer_reader& reader) const;
    // At a per-caller upstream, a 401 or 403 is the caller's business, not a failure of the
    // upstream's; nullopt for any other answer. `line`: the credential the request carried.
    std::optional<upstream_failure> refused_credential(const http_answer& answer,
                                                       const session_origin* origin,
                                                       std::string_view line) const;
    void endpoint_failed(upstream_endpoint& ep, const std::string& why);

    upstream_state& state_;
    transport::deadline_watch& watch_; // the io thread's: request deadlines without a timer each
    upstream_credentials& credentials_;
    upstream_guards& guards_;
    upstream_observer& heard_;
    std::vector<std::unique_ptr<upstream_endpoint>> endpoints_;
    std::shared_ptr<boost::asio::ssl::context> tls_; // created with the first https endpoint
};

} // namespace gate::gateway
