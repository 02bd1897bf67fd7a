// The decisions of gate-stdio's stateless side (MCP 2026-07-28): which POSTs are stateless,
// what their headers must mirror, and how the requests of many HTTP clients share one child.
//
// Every client picks its own JSON-RPC ids, so two clients may both send id 1 at once. Each
// request forwarded to the shared child therefore gets an id of the shim's own (an integer
// that is never reused while the child lives), and so does its `_meta.progressToken`; a
// message from the child is taken back to the client's own id, token and subscription id:
//   - a response goes to the request whose rewritten id it answers;
//   - `notifications/progress` to the request whose rewritten token it names, when its
//     client accepts an event stream;
//   - a notification carrying `_meta["io.modelcontextprotocol/subscriptionId"]` to the
//     `subscriptions/listen` whose rewritten id it names (so does a `notifications/cancelled`
//     that names it as `requestId`: the server's teardown of a listen);
//   - `notifications/message` (stdio says nothing of which request a log message belongs to)
//     to the oldest request in flight that asked for log messages (`_meta` logLevel) and
//     accepts an event stream;
//   - anything else goes nowhere (a 2026-07-28 server sends no requests and has no session
//     stream).
#pragma once

#include "protocol/json_rpc.hpp"
#include "shim/child_tool_headers.hpp"

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gate::shim {

// A POST without Mcp-Session-Id is stateless when its MCP-Protocol-Version header (or, without
// one, its `_meta` protocolVersion) names a revision other than the sessionful ones
// (2025-03-26 ... 2025-11-25): a request (not initialize) is served by the shared child; a
// notification is acknowledged and dropped (the revision defines none from a client over HTTP,
// and the `notifications/cancelled` a client may send anyway names its own id, which the
// closed stream already cancelled under the child's). Anything else is sessionful.
enum class stateless_kind { none, request, notification };
stateless_kind stateless_post_kind(const protocol::message& m, std::string_view version_header);

struct header_refusal {
    int code; // -32020 HeaderMismatch, or -32602 (the envelope's required fields)
    std::string message;
};
// What the revision requires of a server before a stateless request is served: the
// MCP-Protocol-Version header equals `_meta` protocolVersion, Mcp-Method the method, Mcp-Name
// (decoded from `=?base64?...?=`) the name or URI of tools/call, resources/read, prompts/get;
// a 2026-07-28 request carries `_meta` clientCapabilities. Which versions the server speaks
// is the child's to say (its error passes through). nullopt: it may be served.
std::optional<header_refusal> check_stateless_headers(const protocol::message& m,
                                                      std::string_view version_header,
                                                      std::string_view method_header,
                                                      std::string_view name_header);

// The HTTP status a stateless request's answer goes back with when it is plain JSON: 404 for
// -32601, 400 for -32020...-32022 (the revision's codes that say the request was wrong), 200
// otherwise.
unsigned answer_status(std::string_view answer);

class stateless_flights {
public:
    struct forwarded {
        std::string key;  // the flight's key (its rewritten id, as text)
        std::string line; // the request as the child gets it (not yet framed)
    };
    struct routed {
        std::string key;
        std::string text; // the message as its client sees it
        bool answer = false;
    };

    // A client request, rewritten for the child. `streams`: its client accepts an event stream.
    // `source`: the text the request was read from (empty: none); what gate-stdio leaves
    // unchanged goes on as written, numbers included (Boost.JSON would write 6.5 as 6.5E0).
    forwarded add(protocol::message request, bool streams, std::string_view source = {});
    void remove(const std::string& key) { by_key_.erase(key); }
    bool contains(const std::string& key) const { return by_key_.contains(key); }
    std::size_t size() const { return by_key_.size(); }
    bool is_listen(const std::string& key) const;

    // Where one of the child's messages goes, as its client sees it; nullopt: nowhere. The
    // answer to a tools/list teaches `tools()` its annotations. `source`: the line it was read
    // from (empty: none), copied wherever the message is unchanged.
    std::optional<routed> route(protocol::message from_child, std::string_view source = {});
    // What the relayed tools/list answers said of the child's tools' x-mcp-header.
    const child_tool_headers& tools() const { return tools_; }
    // The notification that cancels flight `key` at the child (its rewritten id).
    static std::string cancel_line(const std::string& key, std::string_view reason);

private:
    struct entry {
        boost::json::value client_id;
        std::optional<boost::json::value> progress_token; // the client's own
        bool listen = false;
        bool wants_log = false;
        bool streams = false;
        bool lists_tools = false;
    };
    const entry* find(const boost::json::value& child_id, std::string& key) const;
    std::optional<routed> by_subscription(protocol::message& m, std::string_view source) const;

    std::int64_t next_ = 0;
    std::map<std::string, entry> by_key_;
    child_tool_headers tools_;
};

// How often the shared child may be started: at most `max` starts within `window` (a child
// that dies at once is not restarted in a tight loop; requests meanwhile get 503).
class restart_budget {
public:
    using clock = std::chrono::steady_clock;
    restart_budget(std::size_t max, clock::duration window) : max_(max), window_(window) {}
    // Takes one start at `now`; false when `max` were taken within the window before it.
    bool take(clock::time_point now);
    // When the next start becomes possible (now or later).
    clock::time_point next_possible(clock::time_point now) const;

private:
    std::size_t max_;
    clock::duration window_;
    std::deque<clock::time_point> starts_;
};

} // namespace gate::shim
