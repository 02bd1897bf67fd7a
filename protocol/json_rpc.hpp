// JSON-RPC 2.0 framing as MCP uses it: classification of one incoming message and the
// error objects the gateway mints itself (spec: "Gateway-minted JSON-RPC errors").
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace gate::protocol {

namespace error_code {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602; // also: invalid or expired list cursor
inline constexpr int internal_error = -32603;
inline constexpr int upstream_rate_limited = -32040;
inline constexpr int upstream_unavailable = -32041;
inline constexpr int policy_denied = -32042;
inline constexpr int unknown_namespace = -32043;
inline constexpr int budget_exhausted = -32044;
inline constexpr int unknown_task = -32002;
} // namespace error_code

enum class message_kind { request, notification, response };

struct message {
    message_kind kind;
    boost::json::object body;
    std::string method;    // requests and notifications
    boost::json::value id; // requests and responses
    const boost::json::object* params() const;
    // Moves the params object out (empty when absent or null).
    boost::json::object take_params();
};

struct rpc_error {
    int code;
    std::string message;
    boost::json::value id; // null when the id could not be read
};

// What a method name may be, in every mode (docs/security.md): 1 to 256 ASCII letters, digits
// and `/ _ - . $ :`, which every MCP and JSON-RPC method in use fits. A method is mirrored
// into headers (`Mcp-Method`), logs and metrics; anything else is refused at the door.
inline constexpr std::size_t max_method_bytes = 256;
bool valid_method_name(std::string_view method);

// Validates one decoded JSON value as a single JSON-RPC 2.0 message. Batches are refused:
// MCP removed them in 2025-06-18.
std::variant<message, rpc_error> classify(boost::json::value v);

boost::json::object make_error(const boost::json::value& id, int code, std::string_view text);
boost::json::object make_result(const boost::json::value& id, boost::json::value result);
// notifications/cancelled for request `request_id`, with `reason` when there is one.
boost::json::object make_cancelled(const boost::json::value& request_id,
                                   const boost::json::value* reason = nullptr);

// The canonical JSON text of a message id, as boost::json::serialize writes it; the integer
// ids nearly every client uses are written without the general serializer (once or twice
// per call on the proxy path).
std::string id_text(const boost::json::value& id);

// The text of request `id` calling `method` with `params` (left out when null), written at
// once rather than built as an object and serialized (every proxied call makes one).
// `params_source`: the text the params were parsed from (a client's), which every unchanged
// part of them is copied from, numbers as written (protocol/json_preserve).
std::string request_text(std::int64_t id, std::string_view method,
                         const boost::json::object* params, std::string_view params_source = {});

} // namespace gate::protocol
