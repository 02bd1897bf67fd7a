// The recording format (docs/recording.md): what gate writes with --record, one JSON object
// per line, and what the replay simulation reads back. Two kinds of line:
//
//   {"kind":"request","seq":7,"at":"2026-11-24T10:00:00.123456Z","session":"3f9a...",
//    "version":"2025-11-25","principal":{"sub":"alice","iss":"https://idp",...},
//    "message":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{...}},
//    "outcome":"ok","upstream":"a"}
//   {"kind":"answer","request":7,"at":"...","upstream":"a","method":"tools/call",
//    "params":{...},"reply":{"result":{...}}}          (or "reply":{"error":{...}},
//    or "failure":{"kind":"timeout","status":0,"message":"..."})
//
// What is left out: credentials of any kind (the Authorization header, tokens, upstream
// secrets never reach a line), session ids (a salted hash stands in), and every value under a
// member whose name says it holds a secret (redacted_member). Plain C++: the recorder actor
// formats, the simulation parses, a fuzz target feeds parse_line.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::protocol {

inline constexpr std::string_view redacted = "[redacted]";

// A member whose value is replaced by "[redacted]" wherever it appears in params or answers:
// its name, lowercased and without '-' and '_', contains token, secret, password, passwd,
// apikey, authorization, cookie or credential.
bool redacted_member(std::string_view name);
// `v` with every such member's value replaced (objects at any depth, arrays included).
boost::json::value redact(boost::json::value v);

struct recorded_principal {
    std::string sub, iss;
    std::vector<std::string> groups;
    // The verified token's claims with scalar values, without the registered ones (exp, iat,
    // nbf, jti, aud, iss, sub): what a policy's `claims` subject can select on.
    boost::json::object claims;
};

// One message a client sent to the MCP endpoint, as it arrived, and what became of it.
struct recorded_request {
    std::uint64_t seq = 0;
    std::chrono::system_clock::time_point at;
    std::optional<std::string> session; // the salted hash of its Mcp-Session-Id
    std::optional<std::string> version; // its MCP-Protocol-Version header
    std::optional<recorded_principal> principal;
    boost::json::value message; // the JSON-RPC message, redacted
    std::string outcome;        // the audit outcome, for the reader
    std::optional<std::string> upstream;
};

// One request gate sent to an upstream, and its answer or why there was none.
struct recorded_answer {
    std::uint64_t request = 0; // the recorded_request's seq; 0: gate's own upkeep
    std::chrono::system_clock::time_point at;
    std::string upstream, method;
    boost::json::object params; // as gate sent them, without the 2026-07-28 envelope
    // The upstream's JSON-RPC response members ("result" or "error"); empty with a failure.
    boost::json::object reply;
    struct failure {
        std::string kind; // connect_error, timeout, http_status, protocol
        int status = 0;
        std::string message;
    };
    std::optional<failure> failed;
};

using recorded_line = std::variant<recorded_request, recorded_answer>;

// The line for one event, with its newline.
std::string to_json_line(const recorded_request& r);
std::string to_json_line(const recorded_answer& a);
// A line read back; the reason when it is not one this format writes.
std::variant<recorded_line, std::string> parse_line(std::string_view line);

// RFC 3339 UTC with microseconds, and back (nullopt: not such a timestamp).
std::string micro_timestamp(std::chrono::system_clock::time_point t);
std::optional<std::chrono::system_clock::time_point> parse_micro_timestamp(std::string_view s);

} // namespace gate::protocol
