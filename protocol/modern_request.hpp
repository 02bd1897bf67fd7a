// The checks a 2026-07-28 (stateless) request must pass before it is served: the per-request
// `_meta` envelope and the HTTP headers that mirror the body (SEP-2243). Plain C++: the
// transport hands in the headers it read.
#pragma once

#include "protocol/gateway_error.hpp"

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gate::protocol {

inline constexpr std::string_view modern_protocol_version = "2026-07-28";

namespace modern_code {
inline constexpr int header_mismatch = -32020;
inline constexpr int missing_client_capability = -32021;
inline constexpr int unsupported_protocol_version = -32022;
// Gate's own refusals to a 2026-07-28 client, outside -32768...-32000: the revision reserves
// -32020...-32099 for the codes it defines and retires -32002 and -32042 (docs/protocol-eras.md,
// "Gate's own errors"). The last two digits are those of the sessions' codes (-32040...-32044).
inline constexpr int upstream_rate_limited = -31040;
inline constexpr int upstream_unavailable = -31041;
inline constexpr int policy_denied = -31042;
inline constexpr int unknown_namespace = -31043;
inline constexpr int budget_exhausted = -31044;
} // namespace modern_code

// `_meta` keys of the envelope.
inline constexpr std::string_view meta_protocol_version = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view meta_client_capabilities =
    "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view meta_client_info = "io.modelcontextprotocol/clientInfo";
inline constexpr std::string_view meta_server_info = "io.modelcontextprotocol/serverInfo";
// The level of log messages a 2026-07-28 request wants (its replacement for logging/setLevel).
inline constexpr std::string_view meta_log_level = "io.modelcontextprotocol/logLevel";
// The level gate asks a 2026-07-28 upstream for on behalf of a 2025-11-25 session's client
// that set none (logging/setLevel): such a client asking a server of its own era directly
// hears what the server sends unasked, which with the SDKs' servers is every level
// (docs/protocol-eras.md, "Log levels").
inline constexpr std::string_view session_default_log_level = "debug";

// The tasks extension of 2026-07-28 (SEP-2663), as named in `extensions` capabilities.
inline constexpr std::string_view tasks_extension = "io.modelcontextprotocol/tasks";

// One of the eight syslog levels MCP names (debug ... emergency).
bool is_log_level(std::string_view level);
// Whether a 2026-07-28 request that asked for log messages at `wanted` (its `_meta` logLevel;
// nullopt: it asked for none) is sent `message` from its call: every message that is not a
// log message, and a log message (`notifications/message`) at `wanted` or more severe. A log
// message whose level is not one of the eight is sent to a request that wants any.
bool wants_message(const boost::json::object& message, const std::optional<std::string>& wanted);

// What gate answers, on a 2026-07-28 client's behalf, to a request an earlier upstream sends
// during that client's call of `call_method`, when the client cannot be asked it through
// input_required: a `ping` (answered empty: gate is there); anything during a call other than
// tools/call, prompts/get and resources/read (the only ones the revision lets return
// input_required); anything but elicitation/create, sampling/createMessage and roots/list; one
// of those whose capability the client did not declare in `client_capabilities` (-32601 saying
// why, as a client without it would). nullopt: the client is asked.
std::optional<boost::json::object>
answer_for_client(const boost::json::object& request, std::string_view call_method,
                  const boost::json::object& client_capabilities);

// The client capabilities a 2026-07-28 request needs and did not declare in its `_meta`, in
// the shape the revision's -32021 names them (`data.requiredCapabilities`): the tasks
// extension for tasks/get, tasks/update and tasks/cancel, and for a subscriptions/listen that
// asks for `taskIds`. nullopt: nothing is missing.
std::optional<boost::json::object> missing_capabilities(std::string_view method,
                                                        const boost::json::object* params);

// The protocol version a request's `_meta` claims, if any.
std::optional<std::string> claimed_version(const boost::json::object* params);

// A header value as sent: plain ASCII, or `=?base64?<base64>?=` for anything else. nullopt:
// malformed encoding.
std::optional<std::string> decode_header_value(std::string_view raw);

// A header value for the wire: as is when it is plain printable ASCII without whitespace at
// either end and not shaped like the sentinel, else `=?base64?<base64 of the UTF-8 bytes>?=`.
std::string encode_header_value(std::string_view value);

// The body member `Mcp-Name` mirrors for `method` ("name", "uri" or "taskId"), if any.
std::optional<std::string_view> named_member(std::string_view method);
// That member's value in `params` when it is a string (a view into `params`); empty otherwise.
std::string_view named_value(std::string_view method, const boost::json::object* params);

// Puts the 2026-07-28 envelope into params._meta (keeping what else is there).
void add_envelope(boost::json::object& params, const boost::json::object& client_capabilities,
                  const boost::json::object& client_info);

// Takes the 2026-07-28 envelope out of params._meta (a request to an upstream of an earlier
// revision), and `_meta` itself when nothing else is left in it.
void remove_envelope(boost::json::object& params);

// The HTTP status the revision ties to an answer to a 2026-07-28 request: 404 for -32601
// (a method the server does not implement), 400 for -32020, -32021 and -32022; 200 for any
// other answer. An upstream's such error reaches a 2026-07-28 client of gate with its status.
unsigned modern_answer_status(const boost::json::object& response);

// Whether `response` refuses a request's version (-32022) while its data.supported lists
// 2026-07-28: a client asks once more, with that version.
bool offers_modern_version(const boost::json::object& response);

struct modern_headers {
    std::string protocol_version; // MCP-Protocol-Version
    std::string method;           // Mcp-Method
    std::string name;             // Mcp-Name
};

struct modern_refusal {
    gateway_error error; // its status and code (protocol/gateway_error)
    std::string message;
    boost::json::object data; // -32022: {supported, requested}
};

// nullopt: the request may be served. Otherwise the 400 it gets, naming what was wrong.
std::optional<modern_refusal> check_modern_request(std::string_view method,
                                                   const boost::json::object* params,
                                                   const modern_headers& headers);

} // namespace gate::protocol
