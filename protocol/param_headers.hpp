// `x-mcp-header` (2026-07-28, SEP-2243): a tool's inputSchema may name parameters whose values
// a client mirrors in `Mcp-Param-{Name}` request headers of its tools/call, so that load
// balancers and gateways can route on them without reading the body. Reading those
// annotations (and refusing a definition that breaks their rules), writing the headers for a
// call's arguments, and checking the headers a client sent against its body. Plain C++.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace gate::protocol {

inline constexpr std::string_view param_header_prefix = "Mcp-Param-";

// One annotated parameter: the header's name after `Mcp-Param-` as the schema wrote it, and
// the property names leading to it from the schema's root (`properties` all the way).
struct param_header {
    std::string name;
    std::vector<std::string> path;
    friend bool operator==(const param_header&, const param_header&) = default;
};
using param_headers = std::vector<param_header>;

// The annotated parameters of a tool's `inputSchema`, or why the definition is invalid: an
// annotation that is not a string of HTTP token characters, one that repeats another
// (case-insensitively), one on a property whose type is not integer, string or boolean, or one
// anywhere but on a property reachable from the root through `properties` alone.
std::variant<param_headers, std::string> read_param_headers(const boost::json::value* schema);

// The header text of an argument: a string as it is, an integer in decimal, a boolean as
// `true`/`false`. nullopt (the header is left out): absent, null, or not one of those.
std::optional<std::string> param_text(const boost::json::value* argument);

// The argument at `path` in a call's `arguments` (nullptr: absent).
const boost::json::value* argument_at(const boost::json::object* arguments,
                                      const std::vector<std::string>& path);

// Header fields as name and value.
using header_fields = std::vector<std::pair<std::string, std::string>>;

// `Mcp-Param-{name}` and its value for each annotated parameter the arguments carry, values
// encoded for the wire (protocol/modern_request.hpp, encode_header_value).
header_fields param_header_fields(const param_headers& wanted,
                                  const boost::json::object* arguments);

// A client's `Mcp-Param-*` headers as it sent them: the name after the prefix, and the value.
using sent_param_headers = header_fields;

// Text an upstream or a client wrote, as a log line or an error message may show it: cut to
// `most` bytes (with "..." after), anything but printable ASCII shown as `?`.
std::string printable(std::string_view text, std::size_t most = 64);

// Header names compare without regard to case.
bool same_header_name(std::string_view a, std::string_view b);

// nullopt when the headers a client sent mirror its arguments for every annotated parameter:
// present exactly when the argument is, equal to it after decoding (integers compared as
// numbers). Otherwise what is wrong, for a -32020 (header names and values quoted, cut short).
std::optional<std::string> check_param_headers(const param_headers& wanted,
                                               const boost::json::object* arguments,
                                               const sent_param_headers& sent);

} // namespace gate::protocol
